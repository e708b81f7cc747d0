package main

import (
	"strings"

	. "github.com/dave/jennifer/jen"

	"github.com/idgen/idgen/runtime/codec"
)

// renderSnowflake writes the methods of an int64 snowflake ID type.
func renderSnowflake(f *File, t *idType) {
	n := t.name
	parse := "parse" + n
	size := 19
	form := "decimal"
	if t.prefix != "" {
		size = len(t.prefix) + 1 + codec.PrefixedLen
		form = "\"" + t.prefix + "_\" and 13 lowercase base32 characters, which sort like the numbers"
	}
	layout := Qual(pkgSnowflake, layoutFunc(t.layout)).Call()

	renderConstructors(f, t, []Code{
		List(Id("v"), Err()).Op(":=").Qual(pkgIdgen, "NextSnowflake").Call(Id("ctx"), Id("src"), layout),
		If(Err().Op("!=").Nil()).Block(Return(Lit(0), Err())),
		Return(Id(n).Call(Id("v")), Nil()),
	})

	f.Commentf("Parse%s parses the text form of %s %s: %s.", n, article(n), n, form)
	f.Func().Id("Parse"+n).Params(Id("s").String()).Params(Id(n), Error()).Block(
		List(Id("v"), Err()).Op(":=").Id(parse).Call(Id("s")),
		Return(Id(n).Call(Id("v")), Err()),
	)
	f.Line()
	var parseCall *Statement
	if t.prefix != "" {
		parseCall = Qual(pkgCodec, "ParsePrefixed").Call(Lit(n), Lit(t.prefix), Id("s"))
	} else {
		parseCall = Qual(pkgCodec, "ParseInt64").Call(Lit(n), Id("s"))
	}
	f.Func().Id(parse).Params(Id("s").String()).Params(Int64(), Error()).Block(Return(parseCall))
	f.Line()

	f.Commentf("AppendText implements encoding.TextAppender: %s. A negative %s, which no", form, n)
	f.Comment("reader accepts, is an error matching codec.ErrInvalid.")
	var appendCall *Statement
	if t.prefix != "" {
		appendCall = Qual(pkgCodec, "AppendPrefixed").Call(Id("b"), Lit(t.prefix), Int64().Call(Id("id")))
	} else {
		appendCall = Qual("strconv", "AppendInt").Call(Id("b"), Int64().Call(Id("id")), Lit(10))
	}
	negative := If(Id("id").Op("<").Lit(0)).Block(Return(Id("b"), Qual(pkgCodec, "InvalidInt64").Call(Lit(n), Int64().Call(Id("id")))))
	f.Func().Params(Id("id").Id(n)).Id("AppendText").Params(Id("b").Index().Byte()).Params(Index().Byte(), Error()).Block(
		negative,
		Return(appendCall, Nil()),
	)
	f.Line()
	renderTextMethods(f, n, size, parse, invalidText(t), Lit(0))

	if t.jsonNumber {
		f.Comment("MarshalJSON implements json.Marshaler: a JSON number (json=number; beware that")
		f.Comment("JavaScript rounds integers above 2^53).")
		f.Func().Params(Id("id").Id(n)).Id("MarshalJSON").Params().Params(Index().Byte(), Error()).Block(
			Return(Id("id").Dot("AppendText").Call(Make(Index().Byte(), Lit(0), Lit(19)))),
		)
		f.Line()
	} else if t.prefix != "" {
		renderQuotedJSON(f, n, size, " holding the text form, as String writes it")
	} else {
		renderQuotedJSON(f, n, size, ", since JavaScript numbers lose precision above 2^53")
	}
	if t.prefix != "" {
		f.Comment("UnmarshalJSON implements json.Unmarshaler. It accepts a JSON string holding the text")
		f.Comment("form, as encoding/json passes it, and no JSON numbers (a prefixed ID is text); null")
		f.Comment("leaves the ID alone.")
	} else {
		f.Comment("UnmarshalJSON implements json.Unmarshaler. It accepts, as encoding/json passes them,")
		f.Comment("a JSON string holding the decimal text or a JSON integer, both without leading zeros;")
		f.Comment("null leaves the ID alone. Negative, fractional and out-of-range numbers are errors.")
	}
	f.Comment("An empty JSON string is the zero ID, as empty text is.")
	f.Func().Params(Id("id").Op("*").Id(n)).Id("UnmarshalJSON").Params(Id("b").Index().Byte()).Error().Block(
		append([]Code{If(String().Call(Id("b")).Op("==").Lit(`""`)).Block(Op("*").Id("id").Op("=").Lit(0), Return(Nil()))}, setFromNullable(n, Qual(pkgCodec, "UnmarshalJSONInt64").Call(Lit(n), Id("b"), Lit(t.prefix == ""), Id(parse)), false, nil)...)...,
	)
	f.Line()

	f.Commentf("Scan implements sql.Scanner: a BIGINT, or text in decimal or as String writes it.")
	f.Commentf("NULL and empty text scan as the zero %s. %s", n, scanSelfDoc(n))
	f.Func().Params(Id("id").Op("*").Id(n)).Id("Scan").Params(Id("src").Any()).Error().Block(
		scanSelf(n),
		scanEmpty(Lit(0)),
		List(Id("v"), Id("_"), Err()).Op(":=").Qual(pkgCodec, "ScanInt64").Call(Lit(n), Id("src"), Id(parse)),
		If(Err().Op("!=").Nil()).Block(Return(Err())),
		Op("*").Id("id").Op("=").Id(n).Call(Id("v")),
		Return(Nil()),
	)
	f.Line()
	f.Comment("Value implements driver.Valuer: the ID as a BIGINT. A negative ID, which Scan refuses, is")
	f.Comment("an error matching codec.ErrInvalid.")
	f.Func().Params(Id("id").Id(n)).Id("Value").Params().Params(Qual("database/sql/driver", "Value"), Error()).Block(
		If(Id("id").Op("<").Lit(0)).Block(Return(Nil(), Qual(pkgCodec, "InvalidInt64").Call(Lit(n), Int64().Call(Id("id"))))),
		Return(Int64().Call(Id("id")), Nil()),
	)
	f.Line()
	f.Comment("GormDataType tells GORM the column type: a plain BIGINT, never an auto-increment")
	f.Comment("column, even as the primary key.")
	f.Func().Params(Id(n)).Id("GormDataType").Params().String().Block(Return(Lit("bigint")))
	f.Line()
	f.Comment("IsZero reports whether the ID is unset.")
	f.Func().Params(Id("id").Id(n)).Id("IsZero").Params().Bool().Block(Return(Id("id").Op("==").Lit(0)))
	f.Line()
	f.Commentf("Time returns the start of the tick the ID was issued in, under the %s layout; the", t.layout)
	f.Comment("zero time for the zero ID. An ID from a counter source (a runtime/segment Allocator,")
	f.Comment("idgen.Timeless) carries no time, and its Time and Parts mean nothing.")
	f.Func().Params(Id("id").Id(n)).Id("Time").Params().Qual("time", "Time").Block(
		If(Id("id").Op("==").Lit(0)).Block(Return(Qual("time", "Time").Values())),
		List(Id("t"), Id("_")).Op(":=").Add(layout).Dot("Time").Call(Qual(pkgSnowflake, "ID").Call(Id("id"))),
		Return(Id("t")),
	)
	f.Line()
	f.Commentf("Parts decodes the ID into its tick, worker and sequence under the %s layout.", t.layout)
	f.Func().Params(Id("id").Id(n)).Id("Parts").Params().Params(Qual(pkgSnowflake, "Parts"), Error()).Block(
		Return(Add(layout).Dot("Decode").Call(Qual(pkgSnowflake, "ID").Call(Id("id")))),
	)
}

// layoutFunc names the runtime/snowflake function that returns a preset layout.
func layoutFunc(name string) string {
	switch name {
	case "classicdc":
		return "ClassicDC"
	case "jsonsafe":
		return "JSONSafe"
	case "sonyflake-v1":
		return "SonyflakeV1"
	case "sonyflake-v2":
		return "SonyflakeV2"
	case "uid-generator":
		return "UIDGenerator"
	}
	return strings.ToUpper(name[:1]) + name[1:]
}
