package redisidem

import (
	"strings"
	"testing"
)

// hashTag is what Redis Cluster hashes of a key name: what its first "{" and the first "}"
// after it enclose, when that is not empty, or else the whole name ("").
func hashTag(name string) string {
	if s := strings.IndexByte(name, '{'); s >= 0 {
		if e := strings.IndexByte(name[s+1:], '}'); e > 0 {
			return name[s+1 : s+1+e]
		}
	}
	return ""
}

// FuzzName: no key gives its record's name a hash tag of its choosing (under a prefix
// without braces, no tag at all; under a tagged prefix, the prefix's tag), two keys never
// share a name, and keys without braces keep the name prefix+key of earlier versions.
func FuzzName(f *testing.F) {
	for _, k := range [][2]string{
		{"4:acme:{x}", "4:acme:x"},
		{"{}{x}", "{x}"},
		{"}{x}", "x}"},
		{"{", "}"},
		{"%7B", "{"},
		{"once:m-1", "once:{m-1}"},
	} {
		f.Add(k[0], k[1])
	}
	plain := &Store{prefix: DefaultPrefix}
	tagged := &Store{prefix: "{orders}:idem:"}
	f.Fuzz(func(t *testing.T, a, b string) {
		if tag := hashTag(plain.name(a)); tag != "" {
			t.Fatalf("key %q: name %q has the hash tag %q", a, plain.name(a), tag)
		}
		if tag := hashTag(tagged.name(a)); tag != "orders" {
			t.Fatalf("key %q under a tagged prefix: name %q has the hash tag %q, want the prefix's", a, tagged.name(a), tag)
		}
		if a != b && plain.name(a) == plain.name(b) {
			t.Fatalf("keys %q and %q share the name %q", a, b, plain.name(a))
		}
		if !strings.ContainsAny(a, "{}") && plain.name(a) != DefaultPrefix+a {
			t.Fatalf("key %q without braces is named %q, was %q", a, plain.name(a), DefaultPrefix+a)
		}
	})
}
