// The Node.js client test: run by TestNode (cmd/idgen-server/internal/clienttest) against a
// running idgen-server named by IDGEN_URL and IDGEN_TOKEN, with the tags IDGEN_SNOWFLAKE_TAG,
// IDGEN_SEGMENT_TAG and IDGEN_NUMBER_TAG (prefix IDGEN_NUMBER_PREFIX).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createClient, ConnectError, Code } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { connect } from "./client.js";
import { IDService } from "./gen/idgen/v1/idgen_pb.js";

const url = process.env.IDGEN_URL;
const token = process.env.IDGEN_TOKEN ?? "";
const tags = {
  snowflake: process.env.IDGEN_SNOWFLAKE_TAG ?? "id",
  segment: process.env.IDGEN_SEGMENT_TAG ?? "order",
  number: process.env.IDGEN_NUMBER_TAG ?? "ord",
};
const prefix = process.env.IDGEN_NUMBER_PREFIX ?? "ORD";
assert.ok(url, "IDGEN_URL names the server to test");

test("IDs are strings in Connect's JSON", async () => {
  const res = await fetch(`${url}/idgen.v1.IDService/Next`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify({ tag: tags.snowflake }),
  });
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(typeof body.id, "string");
  assert.match(body.id, /^[1-9][0-9]{15,18}$/);
  assert.equal(body.text, body.id);
  const list = await (await fetch(`${url}/idgen.v1.IDService/List`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify({ tag: tags.segment, count: 5 }),
  })).json();
  assert.equal(list.ids.length, 5);
  for (const id of list.ids) assert.equal(typeof id, "string");
});

for (const kind of ["snowflake", "segment"]) {
  test(`${kind} IDs are unique and increasing`, async () => {
    const { call } = connect([url], token);
    const seen = new Set();
    let last = 0n;
    for (let i = 0; i < 300; i++) {
      const r = await call("next", { tag: tags[kind] });
      assert.equal(typeof r.text, "string");
      assert.equal(r.text, r.id.toString());
      assert.ok(r.id > last, `${r.id} after ${last}`);
      assert.ok(!seen.has(r.id));
      seen.add(r.id);
      last = r.id;
    }
    const l = await call("list", { tag: tags[kind], count: 1000 });
    assert.equal(l.ids.length, 1000);
    for (const id of l.ids) {
      assert.ok(id > last && !seen.has(id));
      seen.add(id);
      last = id;
    }
  });
}

test("business numbers are strings, unique and increasing", async () => {
  const { call } = connect([url], token, { json: false });
  let last = "";
  const seen = new Set();
  for (let i = 0; i < 200; i++) {
    const r = await call("next", { tag: tags.number });
    assert.ok(r.text.startsWith(prefix), r.text);
    assert.ok(r.text > last, `${r.text} after ${last}`);
    assert.ok(!seen.has(r.text));
    seen.add(r.text);
    last = r.text;
  }
  const d = await call("decode", { tag: tags.number, id: last, zone: "UTC" });
  assert.equal(d.tag, tags.number);
  assert.ok(d.time);
});

test("a wrong token is refused", async () => {
  const { call } = connect([url], "not-the-token-0123456789");
  await assert.rejects(call("next", { tag: tags.snowflake }), /unauthenticated|invalid bearer token/i);
});

// IDGEN_LONG_TAG names a number tag with the longest prefix: a List of the default cap
// (100,000) of it would not fit gRPC's 4 MiB default, so the server refuses it before
// drawing any ID and names the count that fits, which then arrives whole through a gRPC
// transport held to that limit (grpc-js's default; connect-node has none of its own).
const longTag = process.env.IDGEN_LONG_TAG;
test("a List fits gRPC's default 4 MiB receive limit", { skip: !longTag && "IDGEN_LONG_TAG not set" }, async () => {
  const grpc = createClient(IDService, createGrpcTransport({ baseUrl: url, readMaxBytes: 4 << 20 }));
  const opts = { headers: token ? { Authorization: `Bearer ${token}` } : {}, timeoutMs: 30000 };
  let n = 100000;
  const err = await grpc.list({ tag: longTag, count: n }, opts).then(() => null, (e) => ConnectError.from(e));
  assert.ok(err, `a List of ${n} was answered`);
  assert.equal(err.code, Code.InvalidArgument, err.message);
  const m = /ask for at most (\d+) a call/.exec(err.rawMessage);
  assert.ok(m, err.rawMessage);
  n = Number(m[1]);
  const r = await grpc.list({ tag: longTag, count: n }, opts);
  assert.equal(r.texts.length, n);
  assert.equal(new Set(r.texts).size, n);
});
