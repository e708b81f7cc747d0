// The Node.js client test: run by TestNode (cmd/idgen-server/internal/clienttest) against a
// running idgen-server named by IDGEN_URL and IDGEN_TOKEN, with the tags IDGEN_SNOWFLAKE_TAG,
// IDGEN_SEGMENT_TAG and IDGEN_NUMBER_TAG (prefix IDGEN_NUMBER_PREFIX).
import { test } from "node:test";
import assert from "node:assert/strict";
import { connect } from "./client.js";

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
