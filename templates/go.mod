module github.com/idgen/idgen/templates

go 1.26.0
