// A small Node.js client of idgen-server over Connect, on bindings generated from
// proto/idgen/v1 by protoc-gen-es: one transport per server address, failing over to the
// next address when a call fails with a code another server may answer.
import { createClient, ConnectError, Code } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { IDService } from "./gen/idgen/v1/idgen_pb.js";

const retryable = new Set([Code.Unavailable, Code.DeadlineExceeded, Code.Unknown, Code.Internal, Code.Aborted]);

export function connect(addresses, token, { timeoutMs = 500, json = true } = {}) {
  const clients = addresses.map((baseUrl) =>
    createClient(IDService, createConnectTransport({ baseUrl, httpVersion: "1.1", useBinaryFormat: !json })),
  );
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  let turn = 0;
  // call runs method on one address after another until one answers.
  async function call(method, req) {
    let last;
    const start = turn++ % clients.length;
    for (let i = 0; i < clients.length; i++) {
      const c = clients[(start + i) % clients.length];
      try {
        return await c[method](req, { headers, timeoutMs });
      } catch (e) {
        last = e;
        if (!(e instanceof ConnectError) || !retryable.has(e.code)) throw e;
      }
    }
    throw last;
  }
  return { call };
}
