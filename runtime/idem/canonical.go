package idem

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// ErrDuplicateName is matched by the error CanonicalJSON returns for a JSON object with two
// members whose names encoding/json reads as one (the same name twice, or "cents" and
// "Cents").
var ErrDuplicateName = errors.New("idem: a JSON object has two members whose names differ only in case, or not at all; send each name once")

// maxJSONDepth is encoding/json's limit on nesting: a deeper value is not valid JSON to it.
const maxJSONDepth = 10000

// CanonicalJSON is a Config.FingerprintBody for JSON APIs. It writes to dst what
// encoding/json would write for the body decoded into an interface value (numbers as
// json.Number): object members sorted by name, no insignificant whitespace, strings
// re-escaped as encoding/json escapes them, numbers as their text (1.0 and 1 differ). So two
// requests that differ only in layout, member order or the escaping of their strings are
// one request, and the bytes are those the json.Unmarshal and json.Marshal round trip of
// earlier versions wrote: a fingerprint taken by one is the other's.
//
// An object with two members whose names encoding/json matches to one struct field (equal
// under its case folding, as "cents" and "Cents" are, or equal) is refused with an error
// matching ErrDuplicateName, and nothing is written: a Go handler reads one of the two and
// not the other, and which one depends on their order, so the body is ambiguous (the
// middleware answers 400). The rule is encoding/json's: ASCII letters fold to upper case,
// other characters to the smallest of their Unicode simple-folding orbit.
//
// A body that is not one JSON value in valid UTF-8, or that nests deeper than encoding/json
// reads (10,000 levels), is written unchanged, so it is compared by its bytes.
//
// Nothing is decoded: the body is read in place, in three passes (check and count, sort,
// write), and the output goes to dst through a 512-byte buffer. What it keeps is the order
// of the members of each object with two or more (4 bytes a member and 12 an object), 4
// bytes a member of the objects open at one time and 16 bytes a level of nesting: less than
// twice the body's size whatever its shape (1.44 times for 1 MiB of {"b":0,"a":0}), nothing
// for arrays and scalars. Bodies of 2 GiB or more are refused.
func CanonicalJSON(dst io.Writer, body []byte) error {
	if len(body) >= math.MaxInt32 {
		return fmt.Errorf("idem: CanonicalJSON: a body of %d bytes; at most %d", len(body), math.MaxInt32-1)
	}
	// Invalid UTF-8 decodes to U+FFFD: two bodies would become one.
	if !utf8.Valid(body) {
		return write(dst, body)
	}
	c := &canon{in: body, dst: dst}
	if d := depth(body); d <= len(c.inline) {
		c.levels = c.inline[:0]
	} else {
		c.levels = make([]level, 0, d)
	}
	// The first walk checks the body and counts what the second keeps, so that the second
	// allocates each slice once, at its size.
	counts, ok := c.walk(nil)
	if !ok {
		return write(dst, body)
	}
	keep := &kept{
		open:   make([]int32, 0, counts.open),
		sorted: make([]int32, 0, counts.members),
		objs:   make([]sortedObj, 0, counts.objs),
	}
	if _, ok := c.walk(keep); !ok {
		if keep.err != nil {
			return keep.err
		}
		return write(dst, body) // not reached: the first walk read it
	}
	c.objs, c.sorted = keep.objs, keep.sorted
	slices.SortFunc(c.objs, func(a, b sortedObj) int { return cmp.Compare(a.pos, b.pos) })
	c.emit()
	if c.err == nil && c.n > 0 {
		_, c.err = dst.Write(c.buf[:c.n])
	}
	if c.err != nil {
		return fmt.Errorf("idem: CanonicalJSON: writing: %w", c.err)
	}
	return nil
}

func write(dst io.Writer, b []byte) error {
	if _, err := dst.Write(b); err != nil {
		return fmt.Errorf("idem: CanonicalJSON: writing: %w", err)
	}
	return nil
}

// canon is one CanonicalJSON call: the body, what the second walk kept of its objects, the
// containers being read or written (the walks and emit use one stack, so it grows once),
// and the output buffer.
type canon struct {
	in     []byte
	objs   []sortedObj // the objects with two members or more, by position
	sorted []int32     // their members, each object's a run in sorted order
	levels []level
	dst    io.Writer
	err    error // the first error of dst
	n      int   // bytes in buf
	buf    [512]byte
	inline [32]level
}

// level is a container being read or written. Its kind is '{' or '[', or 's' for an
// object written in sorted order. While reading, pos is the offset of its opening bracket
// and n an object's members so far. While writing a sorted object, pos is its index in
// objs, n the next member to write, and end the furthest end of its members' values,
// where its '}' follows.
type level struct {
	kind        byte
	n, pos, end int32
}

// sortedObj is an object with two members or more: the offset of its '{', and its members
// (the offsets of their names' opening quotes) in sorted[at:at+n].
type sortedObj struct{ pos, at, n int32 }

// counts is what the first walk counts: the objects with two members or more and their
// members, and the most members of objects open at one time.
type counts struct{ objs, members, open int }

// kept is what the second walk keeps.
type kept struct {
	open   []int32 // names of the members of the objects being read, innermost last
	sorted []int32
	objs   []sortedObj
	err    error // a duplicate name
}

// walk reads c.in as encoding/json's Decoder reads one value and then finds the end of its
// input: whitespace, one value at most maxJSONDepth containers deep, whitespace. With keep
// nil it counts; otherwise it records each object's members in keep and checks their
// names, and a duplicate (keep.err) makes it stop with ok false.
func (c *canon) walk(keep *kept) (n counts, ok bool) {
	in := c.in
	stack := c.levels[:0]
	open := 0 // members of the open objects
	i := skipWS(in, 0)
	for {
		// A value starts at i.
		if i >= len(in) {
			return n, false
		}
		switch b := in[i]; {
		case b == '{' || b == '[':
			if len(stack) == maxJSONDepth {
				return n, false
			}
			stack = append(stack, level{kind: b, pos: int32(i)})
			i = skipWS(in, i+1)
			if i < len(in) && in[i] == b+2 { // '{'+2 is '}', '['+2 is ']'
				i++
				stack = stack[:len(stack)-1]
				break
			}
			if b == '{' {
				if i = c.member(keep, &stack[len(stack)-1], i); i < 0 {
					return n, false
				}
				open++
				n.open = max(n.open, open)
			}
			continue
		case b == '"':
			if i = scanString(in, i); i < 0 {
				return n, false
			}
		case b == 't':
			if i = scanLiteral(in, i, "true"); i < 0 {
				return n, false
			}
		case b == 'f':
			if i = scanLiteral(in, i, "false"); i < 0 {
				return n, false
			}
		case b == 'n':
			if i = scanLiteral(in, i, "null"); i < 0 {
				return n, false
			}
		case b == '-' || '0' <= b && b <= '9':
			if i = scanNumber(in, i); i < 0 {
				return n, false
			}
		default:
			return n, false
		}
		// A value ended at i: what follows is the next value of its container, or the
		// container's end (and then its own container's next value or end), or the end of
		// the input.
	next:
		for {
			i = skipWS(in, i)
			if len(stack) == 0 {
				return n, i == len(in)
			}
			if i == len(in) {
				return n, false
			}
			top := &stack[len(stack)-1]
			switch b := in[i]; {
			case b == ',':
				i = skipWS(in, i+1)
				if top.kind == '{' {
					if i = c.member(keep, top, i); i < 0 {
						return n, false
					}
					open++
					n.open = max(n.open, open)
				}
				break next
			case top.kind == '{' && b == '}':
				if top.n >= 2 {
					n.objs++
					n.members += int(top.n)
					if keep != nil && !c.sortMembers(keep, top) {
						return n, false
					}
				} else if keep != nil {
					keep.open = keep.open[:len(keep.open)-int(top.n)]
				}
				open -= int(top.n)
				i++
				stack = stack[:len(stack)-1]
			case top.kind == '[' && b == ']':
				i++
				stack = stack[:len(stack)-1]
			default:
				return n, false
			}
		}
	}
}

// member reads an object member's name at i and the colon after it, for the object top,
// and returns where its value starts, or -1.
func (c *canon) member(keep *kept, top *level, i int) int {
	if i >= len(c.in) || c.in[i] != '"' {
		return -1
	}
	if keep != nil {
		keep.open = append(keep.open, int32(i))
	}
	top.n++
	if i = skipWS(c.in, scanString(c.in, i)); i < 0 || i >= len(c.in) || c.in[i] != ':' {
		return -1
	}
	return skipWS(c.in, i+1)
}

// sortMembers checks the names of the object top, whose members are the last top.members
// of keep.open, and moves them to keep.sorted in order; false for a duplicate name.
func (c *canon) sortMembers(keep *kept, top *level) bool {
	base := len(keep.open) - int(top.n)
	names := keep.open[base:]
	// Names equal under folding are neighbours in the folded order.
	slices.SortFunc(names, c.compareFolded)
	for j := 1; j < len(names); j++ {
		if c.compareFolded(names[j-1], names[j]) == 0 {
			keep.err = fmt.Errorf("%w: %s and %s", ErrDuplicateName, c.quoteName(names[j-1]), c.quoteName(names[j]))
			return false
		}
	}
	// encoding/json sorts a map's keys as strings.Compare does: by the bytes of the
	// decoded names, which is their order by code point.
	slices.SortFunc(names, c.compareNames)
	keep.objs = append(keep.objs, sortedObj{pos: top.pos, at: int32(len(keep.sorted)), n: top.n})
	keep.sorted = append(keep.sorted, names...)
	keep.open = keep.open[:base]
	return true
}

// compareNames orders the decoded names whose opening quotes are at a and b.
func (c *canon) compareNames(a, b int32) int {
	i, j := int(a)+1, int(b)+1
	for {
		var r, s rune
		r, i = nextRune(c.in, i)
		s, j = nextRune(c.in, j)
		if r != s || r < 0 {
			return int(r - s)
		}
	}
}

// compareFolded orders the names at a and b as compareNames does after folding them as
// encoding/json does (foldName in its fold.go): equal means a decoder matches both to one
// field.
func (c *canon) compareFolded(a, b int32) int {
	i, j := int(a)+1, int(b)+1
	for {
		var r, s rune
		r, i = nextRune(c.in, i)
		s, j = nextRune(c.in, j)
		if r, s = fold(r), fold(s); r != s || r < 0 {
			return int(r - s)
		}
	}
}

// fold is encoding/json's folding of one rune: ASCII letters to upper case, other runes to
// the smallest rune of their simple-folding orbit.
func fold(r rune) rune {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' {
			r -= 'a' - 'A'
		}
		return r
	}
	for {
		r2 := unicode.SimpleFold(r)
		if r2 <= r {
			return r2
		}
		r = r2
	}
}

// quoteName returns the decoded name at i, quoted, at most 64 runes of it, for an error
// message.
func (c *canon) quoteName(i int32) string {
	var b []byte
	j := int(i) + 1
	for n := 0; ; n++ {
		var r rune
		if r, j = nextRune(c.in, j); r < 0 {
			break
		}
		if n == 64 {
			return fmt.Sprintf("%q...", b)
		}
		b = utf8.AppendRune(b, r)
	}
	return fmt.Sprintf("%q", b)
}

// nextRune decodes the rune of the JSON string in at i, as encoding/json's unquote does
// (a lone or broken surrogate is U+FFFD), and returns where the next starts; -1 at the
// closing quote. The string is valid.
func nextRune(in []byte, i int) (rune, int) {
	switch b := in[i]; {
	case b == '"':
		return -1, i
	case b == '\\':
		switch e := in[i+1]; e {
		case 'b':
			return '\b', i + 2
		case 'f':
			return '\f', i + 2
		case 'n':
			return '\n', i + 2
		case 'r':
			return '\r', i + 2
		case 't':
			return '\t', i + 2
		case 'u':
			r := hex4(in[i+2:])
			if !utf16.IsSurrogate(r) {
				return r, i + 6
			}
			if i+12 <= len(in) && in[i+6] == '\\' && in[i+7] == 'u' {
				if d := utf16.DecodeRune(r, hex4(in[i+8:])); d != unicode.ReplacementChar {
					return d, i + 12
				}
			}
			return unicode.ReplacementChar, i + 6
		default: // '"', '\\', '/'
			return rune(e), i + 2
		}
	case b < utf8.RuneSelf:
		return rune(b), i + 1
	default:
		r, n := utf8.DecodeRune(in[i:])
		return r, i + n
	}
}

// hex4 decodes four hex digits, or returns -1.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// depth returns how deep the brackets outside strings nest in in, at most maxJSONDepth+1:
// the stack the walks need, allocated once.
func depth(in []byte) int {
	d, deepest := 0, 0
	for i := 0; i < len(in); i++ {
		switch in[i] {
		case '{', '[':
			if d++; d > deepest {
				if deepest = d; deepest > maxJSONDepth {
					return deepest
				}
			}
		case '}', ']':
			d--
		case '"':
			for i++; i < len(in) && in[i] != '"'; i++ {
				if in[i] == '\\' {
					i++
				}
			}
		}
	}
	return deepest
}

func skipWS(in []byte, i int) int {
	for i >= 0 && i < len(in) {
		switch in[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// scanString returns the end of the string whose opening quote is at i, or -1: no control
// characters, escapes as JSON has them.
func scanString(in []byte, i int) int {
	for i++; i < len(in); {
		switch b := in[i]; {
		case b == '"':
			return i + 1
		case b < 0x20:
			return -1
		case b == '\\':
			if i+1 >= len(in) {
				return -1
			}
			switch in[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(in) || hex4(in[i+2:]) < 0 {
					return -1
				}
				i += 6
			default:
				return -1
			}
		default:
			i++
		}
	}
	return -1
}

func scanLiteral(in []byte, i int, lit string) int {
	if len(in)-i < len(lit) || string(in[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// scanNumber returns the end of the number at i, or -1: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func scanNumber(in []byte, i int) int {
	digits := func(i int) int {
		j := i
		for j < len(in) && '0' <= in[j] && in[j] <= '9' {
			j++
		}
		if j == i {
			return -1
		}
		return j
	}
	if in[i] == '-' {
		i++
	}
	switch {
	case i < len(in) && in[i] == '0':
		i++
	case i < len(in) && '1' <= in[i] && in[i] <= '9':
		i = digits(i)
	default:
		return -1
	}
	if i < len(in) && in[i] == '.' {
		if i = digits(i + 1); i < 0 {
			return -1
		}
	}
	if i < len(in) && (in[i] == 'e' || in[i] == 'E') {
		i++
		if i < len(in) && (in[i] == '+' || in[i] == '-') {
			i++
		}
		if i = digits(i); i < 0 {
			return -1
		}
	}
	return i
}

// emit writes the canonical form of the valid body.
func (c *canon) emit() {
	in := c.in
	stack := c.levels[:0]
	i := skipWS(in, 0)
	for {
		// Write the value at i.
		switch in[i] {
		case '{':
			c.byte('{')
			if k, found := slices.BinarySearchFunc(c.objs, int32(i), func(o sortedObj, pos int32) int { return cmp.Compare(o.pos, pos) }); found {
				stack = append(stack, level{kind: 's', pos: int32(k)})
				i = c.sortedMember(&stack[len(stack)-1])
				continue
			}
			i = skipWS(in, i+1)
			if in[i] == '}' {
				c.byte('}')
				i++
				break
			}
			stack = append(stack, level{kind: '{'})
			i = c.name(i)
			continue
		case '[':
			c.byte('[')
			i = skipWS(in, i+1)
			if in[i] == ']' {
				c.byte(']')
				i++
				break
			}
			stack = append(stack, level{kind: '['})
			continue
		case '"':
			i = c.string(i)
		default: // a number or a literal: its text
			j := i
			for j < len(in) && !endsScalar(in[j]) {
				j++
			}
			c.write(in[i:j])
			i = j
		}
		// A value ended at i.
	next:
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.kind == 's' {
				top.end = max(top.end, int32(i))
				if top.n < c.objs[top.pos].n {
					c.byte(',')
					i = c.sortedMember(top)
					break next
				}
				c.byte('}')
				i = skipWS(in, int(top.end)) + 1
				stack = stack[:len(stack)-1]
				continue
			}
			i = skipWS(in, i)
			if in[i] == ',' {
				c.byte(',')
				i = skipWS(in, i+1)
				if top.kind == '{' {
					i = c.name(i)
				}
				break next
			}
			c.byte(in[i]) // '}' or ']'
			i++
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			return
		}
	}
}

// sortedMember writes the name of the next member of the sorted object l, and returns
// where its value starts.
func (c *canon) sortedMember(l *level) int {
	o := c.objs[l.pos]
	at := c.sorted[o.at+l.n]
	l.n++
	return c.name(int(at))
}

// name writes the member name at i and its colon, and returns where its value starts.
func (c *canon) name(i int) int {
	i = skipWS(c.in, c.string(i))
	c.byte(':')
	return skipWS(c.in, i+1)
}

func endsScalar(b byte) bool {
	switch b {
	case ' ', '\t', '\n', '\r', ',', ']', '}':
		return true
	}
	return false
}

const hexDigits = "0123456789abcdef"

// string writes the string at i as encoding/json's Marshal writes its decoded value (HTML
// characters, U+2028 and U+2029 escaped), and returns its end.
func (c *canon) string(i int) int {
	in := c.in
	c.byte('"')
	i++
	for {
		// Runs that need no change are copied as they are.
		j := i
		for j < len(in) {
			b := in[j]
			if b < utf8.RuneSelf {
				if !htmlSafe(b) {
					break
				}
			} else if b == 0xe2 && in[j+1] == 0x80 && (in[j+2] == 0xa8 || in[j+2] == 0xa9) {
				break
			}
			j++
		}
		c.write(in[i:j])
		if in[j] == '"' {
			c.byte('"')
			return j + 1
		}
		var r rune
		r, i = nextRune(in, j)
		c.rune(r)
	}
}

// htmlSafe reports whether encoding/json writes the ASCII byte b as it is.
func htmlSafe(b byte) bool {
	return b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
}

// rune writes r as encoding/json writes it in a string.
func (c *canon) rune(r rune) {
	switch {
	case r < utf8.RuneSelf && htmlSafe(byte(r)):
		c.byte(byte(r))
	case r == '\\' || r == '"':
		c.write([]byte{'\\', byte(r)})
	case r == '\b':
		c.write([]byte(`\b`))
	case r == '\f':
		c.write([]byte(`\f`))
	case r == '\n':
		c.write([]byte(`\n`))
	case r == '\r':
		c.write([]byte(`\r`))
	case r == '\t':
		c.write([]byte(`\t`))
	case r < utf8.RuneSelf:
		c.write([]byte{'\\', 'u', '0', '0', hexDigits[r>>4], hexDigits[r&0xf]})
	case r == '\u2028' || r == '\u2029':
		c.write([]byte{'\\', 'u', '2', '0', '2', hexDigits[r&0xf]})
	default:
		var b [utf8.UTFMax]byte
		c.write(b[:utf8.EncodeRune(b[:], r)])
	}
}

func (c *canon) byte(b byte) {
	if c.n == len(c.buf) {
		c.flush()
	}
	c.buf[c.n] = b
	c.n++
}

func (c *canon) write(b []byte) {
	for len(b) > 0 {
		if c.n == len(c.buf) {
			c.flush()
		}
		k := copy(c.buf[c.n:], b)
		c.n += k
		b = b[k:]
	}
}

func (c *canon) flush() {
	if c.err == nil {
		_, c.err = c.dst.Write(c.buf[:c.n])
	}
	c.n = 0
}
