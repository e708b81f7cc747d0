package server_test

import (
	"context"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"google.golang.org/protobuf/proto"

	"github.com/idgen/idgen/cmd/idgen-server/internal/testserver"
	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
)

// chromium returns the path of a Chromium to drive. Without one the test skips, except
// in CI (CI set), where .ci/server installed Debian's chromium.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("IDGEN_TEST_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "/usr/bin/chromium"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is missing: apt-get install -y chromium (.ci/server installs it)")
	}
	t.Skip("chromium is missing (apt-get install -y chromium, or set IDGEN_TEST_CHROMIUM): the CORS browser test needs it")
	return ""
}

// corsPage is a page that calls the server at base with token as another origin's page
// would: Connect's JSON through fetch, gRPC-Web in binary and text mode (frames built
// by hand, as a generated client would send them) and Leaf's path. Each result is
// "ok <status> <payload in hex or text>" or "error <what the browser said>".
const corsPage = `<!doctype html><title>other origin</title><script>
async function calls(base, token) {
  const auth = {"Authorization": "Bearer " + token};
  const out = {};
  const frame = new Uint8Array([0, 0, 0, 0, 4, 0x0a, 2, 0x69, 0x64]); // NextRequest{tag: "id"}
  function hex(b) { return Array.from(b, x => x.toString(16).padStart(2, "0")).join(""); }
  function frames(b) { // gRPC-Web frames: [flags, length(4), payload]
    let msg = "", status = "";
    for (let i = 0; i + 5 <= b.length; ) {
      const n = (b[i+1] << 24) | (b[i+2] << 16) | (b[i+3] << 8) | b[i+4];
      const p = b.slice(i + 5, i + 5 + n);
      if (b[i] & 0x80) { const m = /grpc-status:\s*(\d+)/i.exec(new TextDecoder().decode(p)); if (m) status = m[1]; }
      else msg = hex(p);
      i += 5 + n;
    }
    return [status, msg];
  }
  try {
    const r = await fetch(base + "/idgen.v1.IDService/Next", {method: "POST",
      headers: {...auth, "Content-Type": "application/json", "Connect-Protocol-Version": "1"}, body: JSON.stringify({tag: "id"})});
    out.connect = "ok " + r.status + " " + await r.text();
  } catch (e) { out.connect = "error " + e; }
  try {
    const r = await fetch(base + "/idgen.v1.IDService/Next", {method: "POST",
      headers: {...auth, "Content-Type": "application/grpc-web+proto", "X-Grpc-Web": "1", "X-User-Agent": "cors-test"}, body: frame});
    const [status, msg] = frames(new Uint8Array(await r.arrayBuffer()));
    out.grpcweb = "ok " + (r.headers.get("grpc-status") || status) + " " + msg;
  } catch (e) { out.grpcweb = "error " + e; }
  try {
    const r = await fetch(base + "/idgen.v1.IDService/Next", {method: "POST",
      headers: {...auth, "Content-Type": "application/grpc-web-text", "Accept": "application/grpc-web-text", "X-Grpc-Web": "1"},
      body: btoa(String.fromCharCode(...frame))});
    const text = await r.text();
    let bytes = [];
    for (let i = 0; i + 4 <= text.length; i += 4) bytes.push(...Array.from(atob(text.slice(i, i + 4)), c => c.charCodeAt(0)));
    const [status, msg] = frames(new Uint8Array(bytes));
    out.grpcwebtext = "ok " + (r.headers.get("grpc-status") || status) + " " + msg;
  } catch (e) { out.grpcwebtext = "error " + e; }
  try {
    const r = await fetch(base + "/api/snowflake/get/id", {headers: auth});
    out.leaf = "ok " + r.status + " " + await r.text();
  } catch (e) { out.leaf = "error " + e; }
  return out;
}
</script>`

// TestCORSBrowser: in headless Chromium, a page on an allowed origin calls the API on
// another origin with a bearer token, through Connect's JSON, gRPC-Web (binary and
// text) and Leaf's path; the same page on an origin not allowed gets nothing (the
// browser blocks it), and neither does any page when CORS is off.
func TestCORSBrowser(t *testing.T) {
	path := chromium(t)
	pages := func() *httptest.Server {
		p := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte(corsPage))
		}))
		t.Cleanup(p.Close)
		return p
	}
	allowed, other := pages(), pages()
	cfg := testConfig(t) + "cors: {allowed_origins: [\"" + allowed.URL + "\"]}\n"
	s := testserver.Start(t, cfg)
	off := testserver.Start(t, testConfig(t))
	waitReady(t, s.URL)
	waitReady(t, off.URL)

	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-extensions", true),
		chromedp.UserDataDir(t.TempDir()))
	defer cancelAlloc()
	browser, cancel := chromedp.NewContext(alloc)
	defer cancel()
	if err := chromedp.Do(browser); err != nil { // starts the browser, for the test's life
		t.Fatalf("starting chromium: %v", err)
	}
	call := func(page, base string) map[string]string {
		t.Helper()
		ctx, cancel := context.WithTimeout(browser, 60*time.Second)
		defer cancel()
		if err := chromedp.Do(ctx, chromedp.Navigate(page)); err != nil {
			t.Fatalf("opening %s: %v", page, err)
		}
		out, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]string](`calls("`+base+`", "`+allToken+`")`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("calls from %s to %s: %v", page, base, err)
		}
		return out
	}

	got := call(allowed.URL, s.URL)
	if c := got["connect"]; !strings.HasPrefix(c, `ok 200 {"id":"`) {
		t.Errorf("Connect from an allowed origin: %s", c)
	}
	for _, mode := range []string{"grpcweb", "grpcwebtext"} {
		f := strings.Fields(got[mode])
		var r v1.NextResponse
		if len(f) != 3 || f[0] != "ok" || f[1] != "0" {
			t.Errorf("%s from an allowed origin: %s", mode, got[mode])
			continue
		}
		b, _ := hex.DecodeString(f[2])
		if err := proto.Unmarshal(b, &r); err != nil || r.Id <= 0 {
			t.Errorf("%s from an allowed origin: %v %v", mode, &r, err)
		}
	}
	if l := got["leaf"]; !strings.HasPrefix(l, "ok 200 ") || strings.Trim(l[len("ok 200 "):], "0123456789") != "" {
		t.Errorf("Leaf's path from an allowed origin: %s", l)
	}

	for what, c := range map[string][2]string{
		"an origin not allowed": {other.URL, s.URL},
		"CORS off":              {allowed.URL, off.URL},
	} {
		for mode, r := range call(c[0], c[1]) {
			if !strings.HasPrefix(r, "error TypeError: Failed to fetch") {
				t.Errorf("%s, %s: %s, want the browser's refusal", what, mode, r)
			}
		}
	}
}
