/**
 * A TLS server on 127.0.0.1 run by Java's own TLS stack (JSSE), for the suites no OpenSSL-based
 * server here can offer: Debian builds OpenSSL 3.0 without its weak suites, so neither Node nor
 * `openssl s_server` will negotiate 3DES, whatever the cipher string or security level. JSSE
 * still implements them and only disables them by policy (`jdk.tls.disabledAlgorithms`), which
 * this server clears. Never used by the agent.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Credentials, LocalServer } from './local-servers';

export interface JsseServerOptions {
  /** JSSE protocol names: `TLSv1.2`, `TLSv1.1` ... */
  protocols: string[];
  /** JSSE suite names, in the server's order of preference: `SSL_RSA_WITH_3DES_EDE_CBC_SHA` ... */
  cipherSuites: string[];
}

// Launched as a single source file (java 11 and later compile it in memory): it serves the PEM
// chain (leaf first) with the PKCS #8 RSA or EC key, prints its port once listening, and completes
// each handshake before closing the connection.
const SERVER_SOURCE = `
import java.io.ByteArrayInputStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Security;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;

public class JsseServer {
  public static void main(String[] args) throws Exception {
    Security.setProperty("jdk.tls.disabledAlgorithms", "");
    Certificate[] chain = CertificateFactory.getInstance("X.509")
        .generateCertificates(new ByteArrayInputStream(Files.readAllBytes(Path.of(args[0])))).toArray(new Certificate[0]);
    byte[] pkcs8 = Base64.getMimeDecoder().decode(Files.readString(Path.of(args[1])).replaceAll("-----[^-]+-----", ""));
    String algorithm = chain[0].getPublicKey().getAlgorithm();
    PrivateKey key = KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    store.setKeyEntry("server", key, new char[0], chain);
    KeyManagerFactory keys = KeyManagerFactory.getInstance("SunX509");
    keys.init(store, new char[0]);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keys.getKeyManagers(), null, null);
    SSLServerSocket server = (SSLServerSocket) context.getServerSocketFactory().createServerSocket(0, 50, InetAddress.getLoopbackAddress());
    server.setEnabledProtocols(args[2].split(","));
    server.setEnabledCipherSuites(args[3].split(","));
    System.out.println(server.getLocalPort());
    System.out.flush();
    while (true) {
      SSLSocket socket = (SSLSocket) server.accept();
      Thread handshake = new Thread(() -> {
        try (socket) {
          socket.startHandshake();
        } catch (Exception probeHungUp) {
          // Probes drop the connection mid-handshake: expected.
        }
      });
      handshake.setDaemon(true);
      handshake.start();
    }
  }
}
`;

/** Starts the JSSE server with these credentials (certPem may hold the chain after the leaf); resolves once it accepts connections. */
export async function startJsseServer(credentials: Credentials, options: JsseServerOptions): Promise<LocalServer> {
  const directory = await mkdtemp(join(tmpdir(), 'certkeeper-jsse-'));
  const source = join(directory, 'JsseServer.java');
  await writeFile(source, SERVER_SOURCE);
  await writeFile(join(directory, 'chain.pem'), credentials.certPem);
  await writeFile(join(directory, 'key.pem'), credentials.keyPem);
  const child = spawn(
    'java',
    [source, join(directory, 'chain.pem'), join(directory, 'key.pem'), options.protocols.join(','), options.cipherSuites.join(',')],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    await rm(directory, { recursive: true, force: true });
  };
  try {
    const port = await new Promise<number>((resolve, reject) => {
      // Compiling the source in memory takes a few seconds on a busy machine.
      const timer = setTimeout(() => reject(new Error(`the JSSE server printed no port within 60 s: ${stderr}`)), 60_000);
      child.once('error', (error) => reject(new Error(`java could not be started: ${error.message}`)));
      child.once('exit', () => reject(new Error(`the JSSE server exited: ${stderr}`)));
      createInterface({ input: child.stdout }).once('line', (line) => {
        clearTimeout(timer);
        resolve(Number(line));
      });
    });
    return { port, close };
  } catch (error) {
    await close();
    throw error;
  }
}
