// Package templates holds the code-generation templates idgen adds to other generators:
// ent/ has the text/template files that plugins/ent/entcext installs into entc.
package templates

import "embed"

// FS holds the templates, under ent/.
//
//go:embed ent/*.tmpl
var FS embed.FS
