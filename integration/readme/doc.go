// Package readme holds the test that keeps the READMEs honest: every Go snippet in
// README.md and the package READMEs is type-checked as pasted, so a renamed function or a
// changed signature fails a test instead of a newcomer's first build.
package readme
