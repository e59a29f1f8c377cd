// kube-proxy's health-check server for one Service, run by the lab inside a node's
// network namespace:
//   ip netns exec <node ns> <path of node 24> health-server.ts --port P --namespace NS --name SVC --state FILE --ready FILE --log FILE
// It answers any path and method with the Service's local endpoint count, read
// from the state file on every request, so a re-sync changes the answer.
// It writes the ready file once it listens on every address (as kube-proxy does).
import { appendFileSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { parseArgs } from 'node:util';
import {
  BAD_REQUEST_RESPONSE,
  connectionHandling,
  healthCheckAnswer,
  parseRequestHead,
  serializeResponse,
} from '../kubeproxy/health.ts';
import { readHealthState } from './health-state.ts';

const MAX_HEAD_BYTES = 1 << 20;
/** Go's server closes idle keep-alive connections eventually; this keeps a forgotten client from pinning one. */
const IDLE_TIMEOUT_MS = 30_000;

export interface HealthServerOptions {
  port: number;
  namespace: string;
  name: string;
  stateFile: string;
  readyFile: string;
  logFile: string;
}

export function parseHealthServerArgs(argv: string[]): HealthServerOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string' },
      namespace: { type: 'string' },
      name: { type: 'string' },
      state: { type: 'string' },
      ready: { type: 'string' },
      log: { type: 'string' },
    },
    strict: true,
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`--port: expected a port number, got ${JSON.stringify(values.port)}`);
  for (const key of ['namespace', 'name', 'state', 'ready', 'log'] as const) {
    if (!values[key]) throw new Error(`--${key}: expected a value, got none`);
  }
  return {
    port,
    namespace: values.namespace as string,
    name: values.name as string,
    stateFile: values.state as string,
    readyFile: values.ready as string,
    logFile: values.log as string,
  };
}

type Log = (line: string) => void;

function serve(socket: Socket, options: HealthServerOptions, log: Log): void {
  let buffered = Buffer.alloc(0);
  let bodyBytesToSkip = 0;
  socket.setTimeout(IDLE_TIMEOUT_MS, () => socket.destroy());
  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    for (;;) {
      if (bodyBytesToSkip > 0) {
        const skipped = Math.min(bodyBytesToSkip, buffered.length);
        buffered = buffered.subarray(skipped);
        bodyBytesToSkip -= skipped;
        if (bodyBytesToSkip > 0) return;
      }
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) {
        if (buffered.length > MAX_HEAD_BYTES) socket.end(BAD_REQUEST_RESPONSE);
        return;
      }
      const request = parseRequestHead(buffered.subarray(0, end).toString('latin1'));
      buffered = buffered.subarray(end + 4);
      const length = Number(request?.headers.get('content-length') ?? '0');
      // Chunked bodies are not worth parsing here: no health checker sends a body.
      if (request === null || !Number.isInteger(length) || length < 0 || request.headers.has('transfer-encoding')) {
        socket.end(BAD_REQUEST_RESPONSE);
        return;
      }
      bodyBytesToSkip = length;
      const state = readHealthState(options.stateFile, log);
      const answer = healthCheckAnswer({ namespace: options.namespace, name: options.name }, state);
      const connection = connectionHandling(request);
      const response = serializeResponse(answer, { date: new Date(), head: request.method === 'HEAD', connection: connection.header });
      if (!connection.keepAlive) {
        socket.end(response);
        return;
      }
      socket.write(response);
    }
  });
}

export function startHealthServer(options: HealthServerOptions): void {
  const log: Log = (line) => appendFileSync(options.logFile, `${new Date().toISOString()} ${line}\n`);
  process.on('uncaughtException', (error) => {
    log(`crashed: ${error.stack ?? error.message}`);
    process.exit(1);
  });
  const server = createServer((socket) => serve(socket, options, log));
  server.on('error', (error) => {
    log(`health-check server for ${options.namespace}/${options.name} on port ${options.port}: ${error.message}`);
    process.exit(1);
  });
  // Every address of the node, like kube-proxy with no --nodeport-addresses.
  server.listen({ port: options.port, host: '0.0.0.0' }, () => {
    log(`serving ${options.namespace}/${options.name} on port ${options.port}`);
    writeFileSync(options.readyFile, `${process.pid}\n`);
  });
  const stop = (): void => {
    server.close();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

if (import.meta.main) {
  let options: HealthServerOptions;
  try {
    options = parseHealthServerArgs(process.argv.slice(2));
  } catch (error) {
    // stdio is closed when the lab runs it: the exit code is what the lab sees.
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  }
  startHealthServer(options);
}
