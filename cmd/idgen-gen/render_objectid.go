package main

import (
	. "github.com/dave/jennifer/jen"
)

// renderObjectID writes the methods of a [12]byte MongoDB ObjectId type.
func renderObjectID(f *File, t *idType) {
	n := t.name
	zero := Id(n).Values()
	raw := Index(Lit(12)).Byte().Call(Id("id"))

	renderConstructors(f, t, []Code{
		Return(Id(n).Call(Qual(pkgObjectID, "New").Call()), Nil()),
	})
	renderByteArrayText(f, n, 12, 24, "24 hex characters, as MongoDB writes them",
		[]Code{Return(Qual(pkgCodec, "ParseObjectID").Call(Lit(n), Id("s")))},
		Qual(pkgObjectID, "Append").Call(Id("b"), raw))
	f.Commentf("Scan implements sql.Scanner: 24 hex characters (what Value writes), or 12 raw bytes")
	f.Commentf("stored by another writer. NULL and empty text scan as the zero %s. %s", n, scanSelfDoc(n))
	f.Func().Params(Id("id").Op("*").Id(n)).Id("Scan").Params(Id("src").Any()).Error().Block(
		scanSelf(n),
		scanEmpty(zero),
		List(Id("v"), Id("_"), Err()).Op(":=").Qual(pkgCodec, "ScanObjectID").Call(Lit(n), Id("src")),
		If(Err().Op("!=").Nil()).Block(Return(Err())),
		Op("*").Id("id").Op("=").Id(n).Call(Id("v")),
		Return(Nil()),
	)
	f.Line()
	f.Comment("Value implements driver.Valuer: the 24 hex characters.")
	f.Func().Params(Id("id").Id(n)).Id("Value").Params().Params(Qual("database/sql/driver", "Value"), Error()).Block(
		Return(Id("id").Dot("String").Call(), Nil()),
	)
	f.Line()
	renderGormDataType(f, n, "varchar(24)", "the 24 hex characters Value writes")
	f.Comment("IsZero reports whether the ID is unset.")
	f.Func().Params(Id("id").Id(n)).Id("IsZero").Params().Bool().Block(Return(Id("id").Op("==").Add(zero)))
	f.Line()
	f.Comment("Time returns the second the ObjectId was made in; the zero time for the zero ID.")
	f.Func().Params(Id("id").Id(n)).Id("Time").Params().Qual("time", "Time").Block(
		If(Id("id").Dot("IsZero").Call()).Block(Return(Qual("time", "Time").Values())),
		Return(Qual(pkgObjectID, "Time").Call(raw)),
	)
}
