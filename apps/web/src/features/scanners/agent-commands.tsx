import { CopyText } from '../../ui/shown-once';

/** The name the README's Docker section builds the agent's image under. */
export const SCANNER_IMAGE = 'certkeeper-scanner';

/**
 * The commands that start an agent for a scanner (README, "Scanner agents" and "Docker"), with
 * this server's address and the token filled in: from a checkout of Certkeeper, or as a container
 * that restarts with its host.
 */
export function agentCommands(apiUrl: string, token: string): { npm: string; docker: string; podman: string; build: string } {
  const container = (engine: string) =>
    `${engine} run -d --restart unless-stopped -e SCANNER_API_URL=${apiUrl} -e SCANNER_TOKEN=${token} ${SCANNER_IMAGE}`;
  return {
    npm: `SCANNER_API_URL=${apiUrl} SCANNER_TOKEN=${token} npm run scanner`,
    docker: container('docker'),
    podman: container('podman'),
    build: `docker build -f docker/scanner.Dockerfile -t ${SCANNER_IMAGE} .`,
  };
}

/** Beside a token shown once: how to run its agent, each command with a copy button. */
export function AgentCommands({ token }: { token: string }) {
  // The address this page came from is the API's: the interface is served by the API process.
  const commands = agentCommands(window.location.origin, token);
  return (
    <section aria-labelledby="agent-commands-heading">
      <h3 id="agent-commands-heading">Run its agent</h3>
      <p className="muted">
        Where the agent runs, it must reach this server at {window.location.origin} and the endpoints it scans. The commands hold the token:
        run one of them now, it is not shown again.
      </p>
      <CopyText id="agent-npm" label="From a checkout of Certkeeper (Node.js)" copyLabel="Copy the npm command" value={commands.npm} />
      <CopyText id="agent-docker" label="As a Docker container" copyLabel="Copy the Docker command" value={commands.docker} />
      <CopyText id="agent-podman" label="As a Podman container" copyLabel="Copy the Podman command" value={commands.podman} />
      <p className="muted small">
        The image is built once from a checkout (podman takes the same arguments): <code className="mono">{commands.build}</code>
      </p>
    </section>
  );
}
