import { describe, expect, it } from '@jest/globals';
import { agentCommands } from './agent-commands';

describe('agentCommands', () => {
  it('fills in the address and token of the README commands', () => {
    const commands = agentCommands('https://certkeeper.example.com', 'stx_s_abc');
    expect(commands.npm).toBe('SCANNER_API_URL=https://certkeeper.example.com SCANNER_TOKEN=stx_s_abc npm run scanner');
    expect(commands.docker).toBe(
      'docker run -d --restart unless-stopped -e SCANNER_API_URL=https://certkeeper.example.com -e SCANNER_TOKEN=stx_s_abc certkeeper-scanner',
    );
    expect(commands.podman).toBe(commands.docker.replace(/^docker/, 'podman'));
    expect(commands.build).toBe('docker build -f docker/scanner.Dockerfile -t certkeeper-scanner .');
  });
});
