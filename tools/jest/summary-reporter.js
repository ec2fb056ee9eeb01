// Ends every run with one plain line, "Tests: N passed, N failed, N skipped", that CI reads as
// the closing line. Written at process exit so that it comes after Jest's own summary.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const { numPassedTests, numFailedTests, numPendingTests, numTodoTests } = results;
    const line = `Tests: ${numPassedTests} passed, ${numFailedTests} failed, ${numPendingTests + numTodoTests} skipped\n`;
    process.once('exit', () => process.stdout.write(line));
  }
}

module.exports = SummaryReporter;
