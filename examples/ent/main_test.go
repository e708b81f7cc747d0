package main

import (
	"bytes"
	"path/filepath"
	"regexp"
	"testing"
)

func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out, filepath.Join(t.TempDir(), "shop.db"), nil); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`user Ada: id usr_[0-9a-z]{13}`),
		regexp.MustCompile(`attempt 1: created order (\d+), number (ORD\d{25})\n`),
		regexp.MustCompile(`attempt 2: key seen before: got order \d+, number ORD\d{25} back, nothing inserted`),
		regexp.MustCompile(`orders in the database: 1\n`),
		regexp.MustCompile(`node\(id: "(usr_[0-9a-z]{13})"\): {"data":{"node":{"id":"usr_[0-9a-z]{13}","__typename":"User","name":"Ada"}}}\n`),
		regexp.MustCompile(`payment [0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12} \(created true\), transaction TXN\d+`),
	} {
		if !want.MatchString(out.String()) {
			t.Errorf("output lacks %v:\n%s", want, out.String())
		}
	}
}
