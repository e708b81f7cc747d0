module github.com/idgen/idgen

go 1.26
