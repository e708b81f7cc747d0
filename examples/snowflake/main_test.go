package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	for _, layout := range []string{"classic", "classicdc", "sonyflake", "jsonsafe"} {
		var out bytes.Buffer
		if err := run(&out, []string{"-worker", "7", "-n", "3", "-layout", layout}); err != nil {
			t.Fatalf("%s: %v", layout, err)
		}
		s := out.String()
		if strings.Count(s, "       7  ") != 3 || !strings.Contains(s, "reserved 10000 IDs") {
			t.Errorf("%s: output:\n%s", layout, s)
		}
	}
	var out bytes.Buffer
	if err := run(&out, []string{"-worker", "1024"}); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("worker 1024: %v", err)
	}
	if err := run(&out, []string{"-layout", "nope"}); err == nil {
		t.Error("unknown layout accepted")
	}
}
