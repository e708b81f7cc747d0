package main

import (
	"fmt"

	. "github.com/dave/jennifer/jen"
)

// renderUUID writes the methods of a [16]byte UUIDv7 type, in its uuid7 or typeid text form.
func renderUUID(f *File, t *idType, gorm bool) {
	n := t.name
	parse := "parse" + n
	zero := Id(n).Values()
	u := Index(Lit(16)).Byte().Call(Id("id"))

	renderConstructors(f, t, []Code{
		List(Id("u"), Err()).Op(":=").Qual(pkgUUIDv7, "New").Call(),
		If(Err().Op("!=").Nil()).Block(Return(zero, Err())),
		Return(Id(n).Call(Id("u")), Nil()),
	})

	size, form := 36, "the canonical 36-character UUID"
	var parseBody []Code
	var appendCall *Statement
	if t.kind == kindTypeID {
		size = 26
		if t.prefix != "" {
			size += len(t.prefix) + 1
		}
		form = "a TypeID, \"" + t.prefix + "_\" and 26 base32 characters, as go.jetify.com/typeid writes it"
		if t.prefix == "" {
			form = "a TypeID without prefix: 26 base32 characters"
		}
		parseBody = []Code{
			List(Id("u"), Err()).Op(":=").Qual(pkgTypeID, "Parse").Call(Lit(t.prefix), Id("s")),
			If(Err().Op("!=").Nil()).Block(Return(Id("u"), Qual(pkgCodec, "Errorf").Call(Lit(n), Id("s"), Lit("%w"), Err()))),
			Return(Id("u"), Nil()),
		}
		appendCall = Qual(pkgTypeID, "Append").Call(Id("b"), Lit(t.prefix), u)
	} else {
		parseBody = []Code{Return(Qual(pkgCodec, "ParseUUID").Call(Lit(n), Id("s")))}
		appendCall = Qual(pkgCodec, "AppendUUID").Call(Id("b"), u)
	}

	renderByteArrayText(f, n, 16, size, form, parseBody, appendCall)

	scanParse := Id(parse)
	scanDoc := "the UUID as text (what uuid, char(36) and varchar(36)\ncolumns return), or 16 raw bytes stored by another writer (Value writes text, so\nbinary(16) is no column for it)"
	if t.kind == kindTypeID {
		scanDoc = "the UUID as text, the TypeID text, or 16 raw bytes stored\nby another writer (Value writes text, so binary(16) is no column for it)"
		scanParse = Func().Params(Id("s").String()).Params(Index(Lit(16)).Byte(), Error()).Block(
			If(List(Id("u"), Err()).Op(":=").Qual(pkgCodec, "ParseUUID").Call(Lit(n), Id("s")), Err().Op("==").Nil()).Block(
				Return(Id("u"), Nil()),
			),
			Return(Id(parse).Call(Id("s"))),
		)
	}
	commentLines(f, fmt.Sprintf("Scan implements sql.Scanner: %s.\nNULL and empty text scan as the zero %s. %s", scanDoc, n, scanSelfDoc(n)))
	f.Func().Params(Id("id").Op("*").Id(n)).Id("Scan").Params(Id("src").Any()).Error().Block(
		scanSelf(n),
		scanEmpty(zero),
		List(Id("u"), Id("_"), Err()).Op(":=").Qual(pkgCodec, "ScanUUID").Call(Lit(n), Id("src"), scanParse),
		If(Err().Op("!=").Nil()).Block(Return(Err())),
		Op("*").Id("id").Op("=").Id(n).Call(Id("u")),
		Return(Nil()),
	)
	f.Line()
	if t.sqlText {
		f.Comment("Value implements driver.Valuer: the TypeID text (sql=text).")
		f.Func().Params(Id("id").Id(n)).Id("Value").Params().Params(Qual("database/sql/driver", "Value"), Error()).Block(
			Return(Id("id").Dot("String").Call(), Nil()),
		)
	} else {
		f.Comment("Value implements driver.Valuer: the UUID in its 36-character lowercase form, which")
		f.Comment("a PostgreSQL uuid column stores natively and other databases as text.")
		f.Func().Params(Id("id").Id(n)).Id("Value").Params().Params(Qual("database/sql/driver", "Value"), Error()).Block(
			Return(String().Call(Qual(pkgCodec, "AppendUUID").Call(Make(Index().Byte(), Lit(0), Lit(36)), u)), Nil()),
		)
	}
	f.Line()
	if t.sqlText {
		width := 26
		if t.prefix != "" {
			width += len(t.prefix) + 1
		}
		renderGormDataType(f, n, fmt.Sprintf("varchar(%d)", width), "the TypeID text Value writes (sql=text)")
	} else {
		renderGormDataType(f, n, "varchar(36)", "the 36-character text Value writes")
		if gorm {
			f.Comment("GormDBDataType tells GORM's migrator the column type per database (-gorm): the native")
			f.Comment("uuid on PostgreSQL, char(36) on MySQL and MariaDB, GormDataType's elsewhere.")
			f.Func().Params(Id(n)).Id("GormDBDataType").Params(Id("db").Op("*").Qual(pkgGorm, "DB"), Id("_").Op("*").Qual(pkgSchema, "Field")).String().Block(
				Switch(Id("db").Dot("Dialector").Dot("Name").Call()).Block(
					Case(Lit("postgres")).Block(Return(Lit("uuid"))),
					Case(Lit("mysql")).Block(Return(Lit("char(36)"))),
				),
				Return(Lit("")),
			)
			f.Line()
		}
	}
	f.Comment("IsZero reports whether the ID is unset.")
	f.Func().Params(Id("id").Id(n)).Id("IsZero").Params().Bool().Block(Return(Id("id").Op("==").Add(zero)))
	f.Line()
	f.Comment("Time returns the millisecond the UUIDv7 was made at, or the zero time for other versions.")
	f.Func().Params(Id("id").Id(n)).Id("Time").Params().Qual("time", "Time").Block(
		Return(Qual(pkgCodec, "UUIDTime").Call(u)),
	)
}
