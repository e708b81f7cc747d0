module github.com/idgen/idgen/examples

go 1.26.0

require (
	entgo.io/ent v0.14.5
	github.com/glebarez/sqlite v1.11.0
	github.com/idgen/idgen v0.0.0-00010101000000-000000000000
	github.com/idgen/idgen/plugins/ent v0.0.0-00010101000000-000000000000
	github.com/idgen/idgen/plugins/gorm v0.0.0-00010101000000-000000000000
	github.com/idgen/idgen/runtime/idem v0.0.0-00010101000000-000000000000
	github.com/idgen/idgen/runtime/uniq v0.0.0-00010101000000-000000000000
	gorm.io/gorm v1.31.2
	modernc.org/sqlite v1.62.0
)

require (
	github.com/dave/jennifer v1.7.1 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/tools v0.52.0 // indirect
)

require (
	ariga.io/atlas v0.32.1-0.20250325101103-175b25e1c1b9 // indirect
	github.com/agext/levenshtein v1.2.3 // indirect
	github.com/apparentlymart/go-textseg/v15 v15.0.0 // indirect
	github.com/bmatcuk/doublestar v1.3.4 // indirect
	github.com/dustin/go-humanize v1.1.0 // indirect
	github.com/glebarez/go-sqlite v1.21.2 // indirect
	github.com/go-openapi/inflect v0.19.0 // indirect
	github.com/google/go-cmp v0.6.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/hashicorp/hcl/v2 v2.18.1 // indirect
	github.com/idgen/idgen/cmd/idgen-gen v0.0.0-00010101000000-000000000000 // indirect
	github.com/idgen/idgen/internal v0.0.0-00010101000000-000000000000 // indirect
	github.com/jinzhu/inflection v1.0.0 // indirect
	github.com/jinzhu/now v1.1.5 // indirect
	github.com/mattn/go-isatty v0.0.24 // indirect
	github.com/mitchellh/go-wordwrap v1.0.1 // indirect
	github.com/ncruces/go-strftime v1.1.0 // indirect
	github.com/remyoudompheng/bigfft v0.0.0-20230129092748-24d4a6f8daec // indirect
	github.com/rogpeppe/go-internal v1.16.0 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	github.com/zclconf/go-cty v1.14.4 // indirect
	github.com/zclconf/go-cty-yaml v1.1.0 // indirect
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.41.0 // indirect
	modernc.org/libc v1.80.1 // indirect
	modernc.org/mathutil v1.7.1 // indirect
	modernc.org/memory v1.12.1 // indirect
)

tool github.com/idgen/idgen/cmd/idgen-gen

replace (
	github.com/idgen/idgen => ..
	github.com/idgen/idgen/cmd/idgen-gen => ../cmd/idgen-gen
	github.com/idgen/idgen/golden => ../golden
	github.com/idgen/idgen/internal => ../internal
	github.com/idgen/idgen/plugins/ent => ../plugins/ent
	github.com/idgen/idgen/plugins/gorm => ../plugins/gorm
	github.com/idgen/idgen/runtime/idem => ../runtime/idem
	github.com/idgen/idgen/runtime/segment => ../runtime/segment
	github.com/idgen/idgen/runtime/uniq => ../runtime/uniq
	github.com/idgen/idgen/templates => ../templates
)
