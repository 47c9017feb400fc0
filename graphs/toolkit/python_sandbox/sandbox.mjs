// The python tool's sandbox: JSON lines in on stdin ({"id", "code", "timeout_s"}), JSON lines
// out on stdout ({"id", "ok", "stdout", "result", "error", "truncated"}; first {"ready": true}).
// CPython runs in WebAssembly (Pyodide) in a worker thread, kept warm between calls; a call
// that runs past its time or memory ends the worker, and a fresh one is started.
import { Worker } from "node:worker_threads";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
const indexURL = path.join(here, "node_modules", "pyodide") + path.sep;
const memoryLimit = Number(process.env.OLG_SANDBOX_MEMORY_MB || 512) * 1024 * 1024;
const maxOutput = Number(process.env.OLG_SANDBOX_MAX_OUTPUT || 10000);

let worker = null;
let ready = null;
let baseline = 0;

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

function start() {
  worker = new Worker(path.join(here, "worker.mjs"), {
    workerData: { indexURL, maxOutput },
    resourceLimits: { maxOldGenerationSizeMb: 256 },
    env: {},
    stdout: true,
    stderr: true,
  });
  ready = new Promise((resolve, reject) => {
    const onReady = (message) => {
      if (message.ready) {
        worker.off("message", onReady);
        baseline = process.memoryUsage().rss;
        resolve();
      }
    };
    worker.on("message", onReady);
    worker.once("error", reject);
  });
  ready.catch(() => {});
}

function restart() {
  const old = worker;
  start();
  return old.terminate();
}

function runOne({ id, code, timeout_s: timeoutSeconds }) {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (reply, broken) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(watch);
      worker.off("message", onMessage);
      worker.off("error", onError);
      worker.off("exit", onExit);
      if (broken) restart();
      resolve({ id, ok: false, stdout: "", result: null, error: null, truncated: false, ...reply });
    };
    const onMessage = (message) => {
      if (message.id !== id) return;
      const { broken, ...reply } = message;
      if (broken) reply.stdout = "";
      finish(reply, Boolean(broken));
    };
    const onError = (error) =>
      finish({ error: `the interpreter failed: ${String(error).slice(0, 500)}` }, true);
    const onExit = () => finish({ error: "the interpreter stopped" }, true);
    const timer = setTimeout(
      () => finish({ error: `timed out after ${timeoutSeconds} s (the code was stopped)` }, true),
      timeoutSeconds * 1000,
    );
    const watch = setInterval(() => {
      if (process.memoryUsage().rss - baseline > memoryLimit) {
        const megabytes = Math.round(memoryLimit / 1024 / 1024);
        finish({ error: `used more than ${megabytes} MB of memory (the code was stopped)` }, true);
      }
    }, 50);
    worker.on("message", onMessage);
    worker.once("error", onError);
    worker.once("exit", onExit);
    worker.postMessage({ id, code });
  });
}

start();
let queue = Promise.resolve();
const lines = createInterface({ input: process.stdin });
ready.then(
  () => send({ ready: true }),
  (error) => {
    send({ ready: false, error: String(error) });
    process.exit(3);
  },
);
lines.on("line", (line) => {
  let request;
  try {
    request = JSON.parse(line);
  } catch {
    send({ id: null, ok: false, error: "not a JSON request" });
    return;
  }
  queue = queue.then(async () => {
    try {
      await ready;
    } catch {
      restart();
      await ready;
    }
    send(await runOne(request));
  });
});
lines.on("close", () => queue.then(() => process.exit(0)));
