package main

import (
	"fmt"
	"strings"

	. "github.com/dave/jennifer/jen"
)

// renderNumber writes the methods of a business-number string type.
func renderNumber(f *File, t *idType) {
	n := t.name
	format := lowerFirst(n) + "Format"

	f.Commentf("%s is the format of every %s: prefix %q, time %q in %s (UTC%s), layout %s%s.",
		format, n, t.prefix, t.timeFormat, t.zone, offsetText(t.zoneOffset), t.layout, map[bool]string{true: ", Luhn check digit"}[t.check])
	f.Var().Id(format).Op("=").Qual(pkgNumber, "MustCompile").Call(Qual(pkgNumber, "Spec").Values(Dict{
		Id("Prefix"): Lit(t.prefix),
		Id("Time"):   Lit(t.timeFormat),
		Id("Zone"):   Qual("time", "FixedZone").Call(Lit(t.zone), Lit(t.zoneOffset)),
		Id("Layout"): Qual(pkgSnowflake, layoutFunc(t.layout)).Call(),
		Id("Check"):  Lit(t.check),
	}))
	f.Line()

	renderConstructors(f, t, []Code{
		List(Id("id"), Err()).Op(":=").Qual(pkgIdgen, "NextTimed").Call(Id("ctx"), Id("src"), Id(format).Dot("Spec").Call().Dot("Layout")),
		If(Err().Op("!=").Nil()).Block(Return(Lit(""), Err())),
		List(Id("s"), Err()).Op(":=").Id(format).Dot("Format").Call(Id("id")),
		If(Err().Op("!=").Nil()).Block(Return(Lit(""), Err())),
		Return(Id(n).Call(Id("s")), Nil()),
	})

	f.Commentf("Parse%s checks that s is a valid %s: prefix, time, digits and check digit.", n, n)
	f.Func().Id("Parse"+n).Params(Id("s").String()).Params(Id(n), Error()).Block(
		If(List(Id("_"), Err()).Op(":=").Id(format).Dot("Parse").Call(Id("s")), Err().Op("!=").Nil()).Block(
			Return(Lit(""), Qual(pkgCodec, "Errorf").Call(Lit(n), Id("s"), Lit("%w"), Err())),
		),
		Return(Id(n).Call(Id("s")), Nil()),
	)
	f.Line()
	check := "check" + n
	f.Commentf("%s returns nil for a valid %s or the zero one, and otherwise an error matching", check, n)
	f.Comment("codec.ErrInvalid: a value made by a conversion, which no reader accepts, is refused by")
	f.Comment("every writer.")
	f.Func().Id(check).Params(Id("id").Id(n)).Error().Block(
		If(Id("id").Op("==").Lit("")).Block(Return(Nil())),
		If(List(Id("_"), Err()).Op(":=").Id(format).Dot("Parse").Call(String().Call(Id("id"))), Err().Op("!=").Nil()).Block(
			Return(Qual(pkgCodec, "InvalidString").Call(Lit(n), String().Call(Id("id")), Err())),
		),
		Return(Nil()),
	)
	f.Line()
	f.Commentf("String returns the number as it is held, \"\" for the zero %s. It is a conversion, so a", n)
	f.Comment("log line costs no parse: a value made by a conversion from text that is no number is")
	f.Comment("returned as it is, and refused by the writers (AppendText, MarshalJSON, Value).")
	f.Func().Params(Id("id").Id(n)).Id("String").Params().String().Block(Return(String().Call(Id("id"))))
	f.Line()
	f.Commentf("AppendText implements encoding.TextAppender: the number, nothing for the zero %s. A", n)
	f.Comment("value that is not a valid number is an error matching codec.ErrInvalid.")
	f.Func().Params(Id("id").Id(n)).Id("AppendText").Params(Id("b").Index().Byte()).Params(Index().Byte(), Error()).Block(
		If(Err().Op(":=").Id(check).Call(Id("id")), Err().Op("!=").Nil()).Block(Return(Id("b"), Err())),
		Return(Append(Id("b"), Id("id").Op("...")), Nil()),
	)
	f.Line()
	f.Comment("MarshalText implements encoding.TextMarshaler, as AppendText writes.")
	f.Func().Params(Id("id").Id(n)).Id("MarshalText").Params().Params(Index().Byte(), Error()).Block(
		Return(Id("id").Dot("AppendText").Call(Nil())),
	)
	f.Line()
	f.Commentf("UnmarshalText implements encoding.TextUnmarshaler. Empty text is the zero %s.", n)
	f.Func().Params(Id("id").Op("*").Id(n)).Id("UnmarshalText").Params(Id("b").Index().Byte()).Error().Block(
		If(Len(Id("b")).Op("==").Lit(0)).Block(Op("*").Id("id").Op("=").Lit(""), Return(Nil())),
		List(Id("v"), Err()).Op(":=").Id("Parse"+n).Call(String().Call(Id("b"))),
		If(Err().Op("!=").Nil()).Block(Return(Err())),
		Op("*").Id("id").Op("=").Id("v"),
		Return(Nil()),
	)
	f.Line()
	f.Commentf("MarshalJSON implements json.Marshaler: a JSON string, \"\" for the zero %s. A value that", n)
	f.Comment("is not a valid number is an error matching codec.ErrInvalid.")
	f.Func().Params(Id("id").Id(n)).Id("MarshalJSON").Params().Params(Index().Byte(), Error()).Block(
		If(Err().Op(":=").Id(check).Call(Id("id")), Err().Op("!=").Nil()).Block(Return(Nil(), Err())),
		Return(Qual(pkgCodec, "MarshalJSONString").Call(String().Call(Id("id")))),
	)
	f.Line()
	f.Comment("UnmarshalJSON implements json.Unmarshaler: a JSON string without escapes, as")
	f.Comment("encoding/json passes it; null leaves the number alone.")
	f.Func().Params(Id("id").Op("*").Id(n)).Id("UnmarshalJSON").Params(Id("b").Index().Byte()).Error().Block(
		List(Id("s"), Id("null"), Err()).Op(":=").Qual(pkgCodec, "UnmarshalJSONString").Call(Lit(n), Id("b")),
		If(Err().Op("!=").Nil().Op("||").Id("null")).Block(Return(Err())),
		Return(Id("id").Dot("UnmarshalText").Call(Index().Byte().Call(Id("s")))),
	)
	f.Line()
	f.Commentf("Scan implements sql.Scanner: text holding %s %s. NULL and empty text scan as the zero %s.", article(n), n, n)
	f.Comment(scanSelfDoc(n))
	f.Func().Params(Id("id").Op("*").Id(n)).Id("Scan").Params(Id("src").Any()).Error().Block(
		scanSelf(n),
		List(Id("s"), Id("_"), Err()).Op(":=").Qual(pkgCodec, "ScanString").Call(Lit(n), Id("src")),
		If(Err().Op("!=").Nil()).Block(Return(Err())),
		Return(Id("id").Dot("UnmarshalText").Call(Index().Byte().Call(Id("s")))),
	)
	f.Line()
	f.Commentf("Value implements driver.Valuer: the number as text, and NULL for the zero %s (which Scan", n)
	f.Comment("reads back as zero; a NOT NULL column refuses a number never set). A value that is not a")
	f.Comment("valid number is an error matching codec.ErrInvalid.")
	f.Func().Params(Id("id").Id(n)).Id("Value").Params().Params(Qual("database/sql/driver", "Value"), Error()).Block(
		If(Id("id").Op("==").Lit("")).Block(Return(Nil(), Nil())),
		If(Err().Op(":=").Id(check).Call(Id("id")), Err().Op("!=").Nil()).Block(Return(Nil(), Err())),
		Return(String().Call(Id("id")), Nil()),
	)
	f.Line()
	renderGormDataType(f, n, fmt.Sprintf("varchar(%d)", t.width), "the width of every number")
	f.Comment("IsZero reports whether the number is unset.")
	f.Func().Params(Id("id").Id(n)).Id("IsZero").Params().Bool().Block(Return(Id("id").Op("==").Lit("")))
	f.Line()
	f.Comment("Snowflake returns the snowflake ID the number was made from.")
	f.Func().Params(Id("id").Id(n)).Id("Snowflake").Params().Params(Qual(pkgSnowflake, "ID"), Error()).Block(
		List(Id("v"), Err()).Op(":=").Id(format).Dot("Parse").Call(String().Call(Id("id"))),
		If(Err().Op("!=").Nil()).Block(Return(Lit(0), Qual(pkgCodec, "Errorf").Call(Lit(n), String().Call(Id("id")), Lit("%w"), Err()))),
		Return(Id("v"), Nil()),
	)
	f.Line()
	f.Comment("Time returns the start of the tick the number was issued in; the zero time if the")
	f.Comment("number is not valid.")
	f.Func().Params(Id("id").Id(n)).Id("Time").Params().Qual("time", "Time").Block(
		List(Id("v"), Err()).Op(":=").Id("id").Dot("Snowflake").Call(),
		If(Err().Op("!=").Nil()).Block(Return(Qual("time", "Time").Values())),
		List(Id("t"), Id("_")).Op(":=").Id(format).Dot("Time").Call(Id("v")),
		Return(Id("t")),
	)
	f.Line()
	f.Comment("Parts decodes the number into the tick, worker and sequence of its snowflake ID.")
	f.Func().Params(Id("id").Id(n)).Id("Parts").Params().Params(Qual(pkgSnowflake, "Parts"), Error()).Block(
		List(Id("v"), Err()).Op(":=").Id("id").Dot("Snowflake").Call(),
		If(Err().Op("!=").Nil()).Block(Return(Qual(pkgSnowflake, "Parts").Values(), Err())),
		Return(Id(format).Dot("Spec").Call().Dot("Layout").Dot("Decode").Call(Id("v"))),
	)
}

func lowerFirst(s string) string {
	i := 0
	for i < len(s) && s[i] >= 'A' && s[i] <= 'Z' {
		i++
	}
	switch {
	case i == 0:
		return s
	case i == len(s):
		return strings.ToLower(s)
	case i > 1:
		i-- // "URLNo" -> "urlNo"
	}
	return strings.ToLower(s[:i]) + s[i:]
}

func offsetText(sec int) string {
	sign := "+"
	if sec < 0 {
		sign, sec = "-", -sec
	}
	h, m := sec/3600, sec%3600/60
	return sign + twoDigits(h) + ":" + twoDigits(m)
}

func twoDigits(v int) string { return string([]byte{byte('0' + v/10), byte('0' + v%10)}) }
