// Draws IDs from a fleet of idgen-servers under load until stdin closes, failing over
// between them: node fleet.mjs ADDR[,ADDR...] TOKEN TAG[,TAG...] [CONCURRENCY]. Prints
// "tag id" per ID on stdout and, at the end, one JSON line of counts on stderr: ids,
// errors, and maxStallMs, the longest time one call took (a failover included).
import { connect } from "./client.js";

const [addrs, token, tagList, conc = "8"] = process.argv.slice(2);
const { call } = connect(addrs.split(","), token, { json: false, timeoutMs: 400 });
const tags = tagList.split(",");
let stop = false;
process.stdin.on("end", () => { stop = true; });
process.stdin.on("close", () => { stop = true; });
process.stdin.resume();

let ids = 0, errors = 0, maxStallMs = 0;
const out = [];
function flush() {
  if (out.length) process.stdout.write(out.splice(0).join(""));
}
const timer = setInterval(flush, 50);

async function worker(w) {
  while (!stop) {
    const tag = tags[(w + ids) % tags.length];
    const t0 = performance.now();
    try {
      const r = await call("list", { tag, count: 20 });
      for (const id of r.ids) out.push(`${tag} ${id}\n`);
      ids += r.ids.length;
      await new Promise((r) => setTimeout(r, 2)); // load, not a CPU-starved machine
    } catch {
      errors++;
      await new Promise((r) => setTimeout(r, 20));
    }
    maxStallMs = Math.max(maxStallMs, performance.now() - t0);
  }
}
await Promise.all(Array.from({ length: Number(conc) }, (_, w) => worker(w)));
clearInterval(timer);
flush();
process.stderr.write(JSON.stringify({ ids, errors, maxStallMs: Math.round(maxStallMs) }) + "\n");
