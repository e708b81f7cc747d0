package main

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestQuickstart(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out, filepath.Join(t.TempDir(), "shop.db")); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	s := out.String()
	t.Log("\n" + s)
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`created user Ada with ID usr_[0-9a-z]{13} \(BIGINT \d+ in the table\)`),
		regexp.MustCompile(`attempt 1: created order ORD\d{25}\n`),
		regexp.MustCompile(`attempt 2: the key was seen before: returned order ORD\d{25}, nothing inserted`),
		regexp.MustCompile(`orders with that key in the database: 1\n`),
		regexp.MustCompile(`worker   1\n`),
		regexp.MustCompile(`a mistyped ORD\d{25} is refused: codec: parse OrderNo`),
	} {
		if !want.MatchString(s) {
			t.Errorf("output lacks %v", want)
		}
	}
	if strings.Count(s, "ORD") < 4 {
		t.Errorf("output:\n%s", s)
	}
}
