package console_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/idgen/idgen/cmd/idgen-server/internal/testserver"
	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
)

var update = flag.Bool("update", false, "rewrite the console's screenshots under cmd/idgen-server/docs")

// docsDir is where the screenshots the README shows live.
const docsDir = "../../docs"

// Widths of the screenshots: a desktop and a phone.
var viewports = []struct {
	name          string
	width, height int64
	mobile        bool
}{
	{"desktop", 1280, 800, false},
	{"phone", 390, 844, true},
}

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
	t.Skip("chromium is missing (apt-get install -y chromium, or set IDGEN_TEST_CHROMIUM): the console's browser test needs it")
	return ""
}

// newBrowser starts a headless Chromium with a profile of its own, with the flags that
// keep it off the network (this machine has none beyond loopback), and stops it when the
// test ends.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 800),
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() {
		cancel()
		cancelAlloc() // kills the browser and waits for it
	})
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return ctx
}

// run runs steps with a deadline, failing the test on error.
func run(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// value runs an action that returns a value, with a deadline, failing the test on
// error.
func value[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// waitJS evaluates expr in the page until it returns a non-empty string, which it
// returns: the page is waited on, not slept for.
func waitJS(t *testing.T, ctx context.Context, what, expr string) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var last string
	for {
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(function(){ try { return String(`+expr+` || ""); } catch (e) { return ""; } })()`))
		if err == nil && got != "" {
			return got
		}
		last = fmt.Sprint(got, err)
		if time.Now().After(deadline) {
			html, _ := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("main")))
			t.Fatalf("%s: not within 60s (%s); page main:\n%s", what, last, html)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// screenshot captures the viewport at each width and writes it under docs (-update) or
// checks that the committed file has the dimensions this test makes, so that CI, which
// does not pass -update, never writes into the tree.
func screenshot(t *testing.T, ctx context.Context, name, url string, ready string) {
	t.Helper()
	for _, vp := range viewports {
		run(t, ctx, "screenshot "+name,
			chromedp.EmulateViewport(vp.width, vp.height, func(p *emulation.SetDeviceMetricsOverrideParams, e *emulation.SetTouchEmulationEnabledParams) {
				p.Mobile = vp.mobile
				e.Enabled = vp.mobile
			}),
			chromedp.Navigate(url),
		)
		waitJS(t, ctx, name+" ready", ready)
		buf := value(t, ctx, "screenshot "+name, chromedp.CaptureScreenshot())
		cfg, err := png.DecodeConfig(bytes.NewReader(buf))
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if int64(cfg.Width) != vp.width || int64(cfg.Height) != vp.height {
			t.Fatalf("screenshot %s %s is %dx%d, want %dx%d", name, vp.name, cfg.Width, cfg.Height, vp.width, vp.height)
		}
		file := filepath.Join(docsDir, fmt.Sprintf("console-%s-%s.png", name, vp.name))
		if *update {
			if err := os.WriteFile(file, buf, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		old, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("%v: run go test ./cmd/idgen-server/internal/console -run TestBrowser -update and commit docs/", err)
		}
		oc, err := png.DecodeConfig(bytes.NewReader(old))
		if err != nil || oc.Width != cfg.Width || oc.Height != cfg.Height {
			t.Fatalf("%s: %dx%d (%v), this test makes %dx%d: run it with -update and commit docs/", file, oc.Width, oc.Height, err, cfg.Width, cfg.Height)
		}
	}
	run(t, ctx, "desktop again", chromedp.EmulateViewport(1280, 800))
}

// TestBrowser drives the console in a real headless Chromium against two running
// instances that share a lease store (and find each other through it): the login form
// hides every tag, the fleet lists both instances with their worker IDs, a tag's buffer
// figure moves after 10,000 IDs are drawn, an ORD number decodes to its time and worker
// and a wrong check digit says so, an admin creates a tag the API then serves, and the
// decoder works with JavaScript off. It takes the README's screenshots on the way.
func TestBrowser(t *testing.T) {
	ctx := newBrowser(t)
	f := startFleet(t)
	a, b := f.a, f.b
	api := client(a.URL, adminToken)

	// Traffic, so the rates and sparklines have something to show: bounded, stopped
	// before the test ends.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			n := int32(200 + 150*(i%7))
			api.List(context.Background(), connect.NewRequest(&v1.ListRequest{Tag: "payments", Count: n}))
			client(b.URL, adminToken).List(context.Background(), connect.NewRequest(&v1.ListRequest{Tag: "payments", Count: n / 2}))
		}
	})
	defer func() { close(stop); wg.Wait() }()

	// Without a token: the login form, and not one tag's name.
	screenshot(t, ctx, "login", a.URL+"/", `document.getElementById("token") && "ok"`)
	run(t, ctx, "login page", chromedp.Navigate(a.URL+"/tags"), chromedp.WaitVisible(chromedp.ID("token")))
	html := value(t, ctx, "login page", chromedp.OuterHTML(chromedp.CSS("html")))
	for _, name := range tagNames {
		if strings.Contains(html, name) {
			t.Errorf("the login page names tag %q:\n%s", name, html)
		}
	}
	if n := value(t, ctx, "no data without a token", chromedp.Evaluate[int](`document.querySelectorAll("table").length`)); n != 0 {
		t.Errorf("the login page has %d tables", n)
	}

	// Sign in with the read-only token: the session cookie is Secure, HttpOnly, SameSite.
	signIn(t, ctx, a.URL+"/", viewerToken)
	got, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{})
	if err != nil {
		t.Fatal(err)
	}
	cookies := got.Cookies
	if len(cookies) != 1 || !cookies[0].Secure || !cookies[0].HTTPOnly || cookies[0].SameSite != network.CookieSameSiteStrict {
		t.Errorf("session cookies %+v, want one Secure, HttpOnly, SameSite=Strict", cookies)
	}

	// Keyboard: the first Tab reaches the skip link, the next ones the navigation.
	run(t, ctx, "keyboard", chromedp.KeyEvent(kb.Tab))
	if got := waitJS(t, ctx, "focus on the skip link", `document.activeElement.className`); got != "skip" {
		t.Errorf("the first Tab focuses %q, want the skip link", got)
	}
	run(t, ctx, "keyboard", chromedp.KeyEvent(kb.Tab))
	if got := waitJS(t, ctx, "focus in the navigation", `document.activeElement.textContent`); got != "Fleet" {
		t.Errorf("the second Tab focuses %q, want the Fleet link", got)
	}

	// The fleet: both instances, each with the worker ID its own Status reports.
	waitJS(t, ctx, "fleet table", `document.querySelectorAll("#fleet tbody tr").length == 2 && "ok"`)
	for _, s := range []*testserver.Server{a, b} {
		w := s.Status(nil).Lease.GetWorker()
		got := waitJS(t, ctx, "worker of "+s.URL, `(function(){ var tr = document.querySelector('#fleet tr[data-instance="`+s.URL+`"]'); return tr && tr.querySelector(".worker").textContent.trim(); })()`)
		if got != strconv.FormatInt(w, 10) {
			t.Errorf("fleet shows worker %s for %s, its Status says %d", got, s.URL, w)
		}
	}
	if a.Status(nil).Lease.GetWorker() == b.Status(nil).Lease.GetWorker() {
		t.Errorf("both instances hold worker %d", a.Status(nil).Lease.GetWorker())
	}
	run(t, ctx, "tags, read-only", chromedp.Navigate(a.URL+"/tags"), chromedp.WaitVisible(chromedp.ID("tags")))
	if value(t, ctx, "tags, read-only", chromedp.Evaluate[bool](`!!document.getElementById("create-form")`)) {
		t.Error("a read-only token sees the admin forms")
	}

	// The buffer figure of a tag moves on the page after 10,000 IDs are drawn.
	bufExpr := `document.querySelector('#tags tr[data-tag="invoice"] .buffered').textContent.trim()`
	before := waitJS(t, ctx, "invoice's buffer", bufExpr)
	res, err := api.List(context.Background(), connect.NewRequest(&v1.ListRequest{Tag: "invoice", Count: 10_000}))
	if err != nil || len(res.Msg.Ids) != 10_000 {
		t.Fatalf("drawing 10,000 IDs: %v", err)
	}
	after := waitJS(t, ctx, "invoice's buffer after 10,000 IDs", `(function(){ var v = `+bufExpr+`; return v != "`+before+`" && v; })()`)
	if want := tagStatus(t, a, "invoice").Buffered; after != comma(want) {
		// The figure refreshes every few seconds; the buffer may have moved on since.
		t.Logf("buffer %s -> %s on the page; Status says %d now", before, after, want)
	}
	t.Logf("invoice's buffer on the page: %s, then %s after 10,000 IDs", before, after)

	// Decode an ORD number: its time and worker, as the API decodes them.
	num, err := api.Next(context.Background(), connect.NewRequest(&v1.NextRequest{Tag: "order-no"}))
	if err != nil {
		t.Fatal(err)
	}
	want, err := api.Decode(context.Background(), connect.NewRequest(&v1.DecodeRequest{Id: num.Msg.Text}))
	if err != nil {
		t.Fatal(err)
	}
	decode(t, ctx, a.URL, num.Msg.Text, "Asia/Shanghai")
	worker := waitJS(t, ctx, "decoded worker", `document.getElementById("r-worker").textContent.trim()`)
	utc := waitJS(t, ctx, "decoded time", `document.getElementById("r-utc").textContent.trim()`)
	local := waitJS(t, ctx, "decoded local time", `document.getElementById("r-local").textContent.trim()`)
	if worker != strconv.FormatInt(want.Msg.Worker, 10) {
		t.Errorf("page shows worker %s for %s, the API %d", worker, num.Msg.Text, want.Msg.Worker)
	}
	if wantUTC := want.Msg.Time.AsTime().UTC().Format("2006-01-02 15:04:05.000 UTC"); utc != wantUTC {
		t.Errorf("page shows time %s for %s, the API %s", utc, num.Msg.Text, wantUTC)
	}
	if !strings.Contains(local, "+08:00") {
		t.Errorf("time in Asia/Shanghai shown as %q", local)
	}
	screenshot(t, ctx, "decode", a.URL+"/decode?id="+num.Msg.Text+"&zone=Asia/Shanghai", `document.getElementById("r-worker") && "ok"`)

	// The same number with a wrong check digit.
	bad := wrongCheckDigit(num.Msg.Text)
	decode(t, ctx, a.URL, bad, "UTC")
	reason := waitJS(t, ctx, "decode error", `document.querySelector("#decode-problem .reason").textContent.trim()`)
	if reason != "bad check digit" {
		t.Errorf("a wrong check digit shows %q", reason)
	}

	// An admin creates a tag, confirming it; the next API call draws from it.
	signOut(t, ctx, a.URL+"/decode")
	signIn(t, ctx, a.URL+"/tags", adminToken)
	run(t, ctx, "create form",
		chromedp.Navigate(a.URL+"/tags"),
		chromedp.WaitVisible(chromedp.ID("create-form")),
		chromedp.SendKeys(chromedp.ID("new-name"), "refund"),
		chromedp.SetValue(chromedp.ID("new-start"), "5000"),
		chromedp.SetValue(chromedp.ID("new-step"), "100"),
		chromedp.Click(chromedp.CSS(`#create-form button[type=submit]`)),
		chromedp.WaitVisible(chromedp.ID("confirm-yes")),
	)
	what := waitJS(t, ctx, "confirmation", `document.getElementById("confirm-what").textContent`)
	if !strings.Contains(what, `"refund"`) || !strings.Contains(what, "5000") {
		t.Errorf("confirmation says %q", what)
	}
	if _, err := api.Next(context.Background(), connect.NewRequest(&v1.NextRequest{Tag: "refund"})); connect.CodeOf(err) != connect.CodeNotFound {
		t.Fatalf("before confirming, tag refund: %v, want NOT_FOUND", err)
	}
	run(t, ctx, "confirm", chromedp.Click(chromedp.ID("confirm-yes")))
	waitJS(t, ctx, "tag created", `document.querySelector('#tags tr[data-tag="refund"]') && document.querySelector(".flash").textContent`)
	first, err := api.Next(context.Background(), connect.NewRequest(&v1.NextRequest{Tag: "refund"}))
	if err != nil || first.Msg.Id != 5000 {
		t.Fatalf("the first ID of the tag made in the console: %v, %v; want 5000", first, err)
	}
	change := waitJS(t, ctx, "change listed", `document.querySelector(".changes li").textContent`)
	if !strings.Contains(change, "ops") || !strings.Contains(change, "refund") {
		t.Errorf("the change is listed as %q, want who (ops) and what", change)
	}
	screenshot(t, ctx, "tags", a.URL+"/tags", `document.querySelector('#tags tr[data-tag="refund"]') && "ok"`)
	screenshot(t, ctx, "fleet", a.URL+"/", `document.querySelectorAll("#fleet tbody tr.good").length == 2 && document.querySelector("#fleet polyline").getAttribute("points") && "ok"`)

	// With JavaScript off, the decoder is a plain form POST.
	scripts(t, ctx, false)
	run(t, ctx, "JavaScript off", chromedp.Navigate(a.URL+"/decode"), chromedp.WaitReady(chromedp.ID("id")))
	run(t, ctx, "decode with JavaScript off",
		chromedp.SendKeys(chromedp.ID("id"), num.Msg.Text+"\r"),
		chromedp.WaitReady(chromedp.ID("r-worker")),
	)
	worker = value(t, ctx, "decoded with JavaScript off", chromedp.TextContent(chromedp.ID("r-worker"), chromedp.NodeReady))
	if strings.TrimSpace(worker) != strconv.FormatInt(want.Msg.Worker, 10) {
		t.Errorf("with JavaScript off the page shows worker %q, want %d", worker, want.Msg.Worker)
	}
	// The page's script fills an empty zone with the browser's; off, it stayed empty.
	if zone := value(t, ctx, "zone left empty", chromedp.Value(chromedp.ID("zone"), chromedp.NodeReady)); zone != "" {
		t.Errorf("with JavaScript off the zone field holds %q: did the page's script run?", zone)
	}
	scripts(t, ctx, true)
}

// scripts turns the page's JavaScript on or off.
func scripts(t *testing.T, ctx context.Context, on bool) {
	t.Helper()
	if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: !on}); err != nil {
		t.Fatal(err)
	}
}

// signIn fills the login form at url (the console answers every page with it) with
// token and waits for the page it leads to.
func signIn(t *testing.T, ctx context.Context, url, token string) {
	t.Helper()
	run(t, ctx, "sign in",
		chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.ID("token")),
		chromedp.SendKeys(chromedp.ID("token"), token+"\r"),
	)
	waitJS(t, ctx, "signed in", `document.querySelector(".who strong") && document.querySelector(".who strong").textContent`)
}

// signOut loads page and presses the header's sign-out button. (Loading it first keeps
// the click off a document a form's submission is still replacing.)
func signOut(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	run(t, ctx, "sign out", chromedp.Navigate(page), chromedp.Click(chromedp.CSS(`form[action="/logout"] button`)), chromedp.WaitVisible(chromedp.ID("token")))
}

// decode submits the decode form with id and zone.
func decode(t *testing.T, ctx context.Context, base, id, zone string) {
	t.Helper()
	run(t, ctx, "decode "+id,
		chromedp.Navigate(base+"/decode"),
		chromedp.WaitVisible(chromedp.ID("id")),
		chromedp.SetValue(chromedp.ID("zone"), zone),
		chromedp.SendKeys(chromedp.ID("id"), id),
		chromedp.Click(chromedp.CSS(`#decode-form button[type=submit]`)),
	)
	waitJS(t, ctx, "decoded "+id, `(document.getElementById("decode-result") || document.getElementById("decode-problem")) && document.getElementById("id").value == "`+id+`" && "ok"`)
}

// wrongCheckDigit returns num with its last digit (the check digit) changed.
func wrongCheckDigit(num string) string {
	last := num[len(num)-1]
	return num[:len(num)-1] + string('0'+(last-'0'+1)%10)
}

func tagStatus(t *testing.T, s *testserver.Server, name string) *v1.TagStatus {
	t.Helper()
	for _, ts := range s.Status(nil).Tags {
		if ts.Name == name {
			return ts
		}
	}
	t.Fatalf("no tag %q", name)
	return nil
}

func comma(n int64) string {
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
