package idjetstream_test

import (
	"context"
	"crypto/rand"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// natsEnv names the NATS server (with JetStream) of the server-backed tests.
const natsEnv = "IDGEN_TEST_NATS_URL"

// natsURL returns the URL in IDGEN_TEST_NATS_URL; it skips the test naming the variable
// when unset, and fails it when the server does not answer or has no JetStream.
func natsURL(t testing.TB) string {
	t.Helper()
	url := os.Getenv(natsEnv)
	if url == "" {
		t.Skip("set " + natsEnv + " (nats://127.0.0.1:4222) to run against NATS JetStream")
	}
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatalf("%s is set but NATS does not answer: %v", natsEnv, err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := js.AccountInfo(ctx); err != nil {
		t.Fatalf("%s is set but the server has no JetStream (start it with -js): %v", natsEnv, err)
	}
	return url
}

// connect connects to url, closing the connection when the test ends.
func connect(t testing.TB, url string) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return nc, js
}

// stream creates a stream of this run's own, "IDGEN_TEST_<WHAT>_<random>", on the subject
// "idgen_test.<what>.<random>" (returned), with cfg's other settings, and deletes it when
// the test ends.
func stream(t testing.TB, js jetstream.JetStream, what string, cfg jetstream.StreamConfig) (jetstream.Stream, string) {
	t.Helper()
	r := strings.ToLower(rand.Text()[:10])
	cfg.Name = strings.ToUpper("idgen_test_" + what + "_" + r)
	subject := "idgen_test." + what + "." + r
	cfg.Subjects = []string{subject}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := js.CreateStream(ctx, cfg)
	if err != nil {
		t.Fatalf("creating stream %s: %v", cfg.Name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := js.DeleteStream(ctx, cfg.Name); err != nil {
			t.Errorf("deleting stream %s: %v", cfg.Name, err)
		}
	})
	return s, subject
}

// consumerConfig is the durable consumer the tests use: explicit acks, with AckWait and
// MaxDeliver given.
func consumerConfig(name string, ackWait time.Duration, maxDeliver int) jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{Durable: name, AckPolicy: jetstream.AckExplicitPolicy, AckWait: ackWait, MaxDeliver: maxDeliver}
}
