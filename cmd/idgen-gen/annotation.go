package main

import (
	"fmt"
	"go/token"
	"strconv"
	"strings"
)

// annotationPrefix starts every annotation line.
const annotationPrefix = "//idgen:"

// annotation is one parsed //idgen: line.
type annotation struct {
	pos     token.Position
	kind    string
	options []option
}

type option struct {
	key, value string
	pos        token.Position
}

// posError is an error at a position in a source file.
type posError struct {
	pos token.Position
	msg string
}

func (e *posError) Error() string { return e.pos.String() + ": " + e.msg }

func errorAt(pos token.Position, format string, args ...any) error {
	return &posError{pos: pos, msg: fmt.Sprintf(format, args...)}
}

// parseAnnotation parses a comment line that starts with annotationPrefix:
//
//	//idgen:KIND [KEY=VALUE ...]
//
// where VALUE is a bare word or a double-quoted Go string.
func parseAnnotation(text string, pos token.Position) (*annotation, error) {
	body := strings.TrimPrefix(text, annotationPrefix)
	col := func(i int) token.Position {
		p := pos
		p.Column += len(annotationPrefix) + i
		return p
	}
	i := 0
	for i < len(body) && !isSpace(body[i]) {
		i++
	}
	a := &annotation{pos: pos, kind: body[:i]}
	if a.kind == "" {
		return nil, errorAt(col(0), "idgen: annotation without a kind: want //idgen:KIND with KIND one of %s", kindList())
	}
	for {
		for i < len(body) && isSpace(body[i]) {
			i++
		}
		if i == len(body) {
			return a, nil
		}
		start := i
		for i < len(body) && body[i] != '=' && !isSpace(body[i]) {
			i++
		}
		key := body[start:i]
		if i == len(body) || body[i] != '=' {
			return nil, errorAt(col(start), "idgen:%s: option %q has no value: want KEY=VALUE", a.kind, key)
		}
		if key == "" {
			return nil, errorAt(col(start), "idgen:%s: '=' without an option name: want KEY=VALUE", a.kind)
		}
		i++ // '='
		vstart := i
		var value string
		if i < len(body) && body[i] == '"' {
			q, err := strconv.QuotedPrefix(body[i:])
			if err != nil {
				return nil, errorAt(col(vstart), "idgen:%s: option %s: unterminated or invalid quoted value", a.kind, key)
			}
			value, _ = strconv.Unquote(q)
			i += len(q)
			if i < len(body) && !isSpace(body[i]) {
				return nil, errorAt(col(i), "idgen:%s: option %s: want a space after the quoted value", a.kind, key)
			}
		} else {
			for i < len(body) && !isSpace(body[i]) {
				i++
			}
			value = body[vstart:i]
			if value == "" {
				return nil, errorAt(col(vstart), "idgen:%s: option %s has an empty value", a.kind, key)
			}
		}
		for _, o := range a.options {
			if o.key == key {
				return nil, errorAt(col(start), "idgen:%s: option %s given twice", a.kind, key)
			}
		}
		a.options = append(a.options, option{key: key, value: value, pos: col(start)})
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' }
