package main

import (
	. "github.com/dave/jennifer/jen"
)

// zeroValue is the literal of a type's zero value.
func zeroValue(t *idType) *Statement {
	switch t.kind {
	case kindSnowflake:
		return Id(t.name).Call(Lit(0))
	case kindNumber:
		return Id(t.name).Call(Lit(""))
	}
	return Id(t.name).Values()
}

// kindConst names the idgen.Kind constant of a kind.
func kindConst(kind string) string {
	switch kind {
	case kindSnowflake:
		return "KindSnowflake"
	case kindNumber:
		return "KindNumber"
	case kindUUID7:
		return "KindUUID7"
	case kindTypeID:
		return "KindTypeID"
	}
	return "KindObjectID"
}

// storageConst names the idgen.Storage constant of what a type's Value writes.
func storageConst(t *idType) string {
	switch {
	case t.kind == kindSnowflake:
		return "StorageInt8"
	case t.kind == kindUUID7, t.kind == kindTypeID && !t.sqlText:
		return "StorageUUID"
	}
	return "StorageText"
}

// renderEdges writes what every kind shares at the edges of a service: the prefix and
// kind of the type, the binders' UnmarshalParam (gin, echo) and Bind (oapi-codegen), and
// gqlgen's MarshalGQL and UnmarshalGQL. They use the standard library only, so no
// framework reaches the generated file's imports.
func renderEdges(f *File, t *idType) {
	n := t.name
	if t.prefix != "" {
		f.Commentf("Prefix returns %q, what the text of every %s starts with.", t.prefix, n)
	} else {
		f.Commentf("Prefix returns \"\": the text of %s %s does not say its type.", article(n), n)
	}
	f.Func().Params(Id(n)).Id("Prefix").Params().String().Block(Return(Lit(t.prefix)))
	f.Line()
	f.Commentf("Kind returns %s, the kind of ID %s is.", kindConst(t.kind), n)
	f.Func().Params(Id(n)).Id("Kind").Params().Qual(pkgIdgen, "Kind").Block(Return(Qual(pkgIdgen, kindConst(t.kind))))
	f.Line()
	f.Comment("UnmarshalParam reads a path, query or form parameter for gin's and echo's binders, as")
	f.Commentf("UnmarshalText does: empty text is the zero %s (an optional parameter left unset).", n)
	f.Func().Params(Id("id").Op("*").Id(n)).Id("UnmarshalParam").Params(Id("s").String()).Error().Block(
		Return(Id("id").Dot("UnmarshalText").Call(Index().Byte().Call(Id("s")))),
	)
	f.Line()
	f.Comment("Bind reads a parameter for oapi-codegen's runtime, as UnmarshalText does: empty text is")
	f.Commentf("the zero %s.", n)
	f.Func().Params(Id("id").Op("*").Id(n)).Id("Bind").Params(Id("s").String()).Error().Block(
		Return(Id("id").Dot("UnmarshalText").Call(Index().Byte().Call(Id("s")))),
	)
	f.Line()
	form := "a JSON string"
	if t.jsonNumber {
		form = "a JSON number (json=number)"
	}
	f.Commentf("MarshalGQL implements gqlgen's graphql.Marshaler: %s, as MarshalJSON writes it.", form)
	f.Comment("It cannot return an error: an ID MarshalJSON refuses is written as null, which gqlgen")
	f.Comment("reports for a non-null field.")
	f.Func().Params(Id("id").Id(n)).Id("MarshalGQL").Params(Id("w").Qual("io", "Writer")).Block(
		List(Id("b"), Err()).Op(":=").Id("id").Dot("MarshalJSON").Call(),
		If(Err().Op("!=").Nil()).Block(Id("b").Op("=").Index().Byte().Call(Lit("null"))),
		List(Id("_"), Id("_")).Op("=").Id("w").Dot("Write").Call(Id("b")),
	)
	f.Line()
	if t.kind == kindSnowflake {
		if t.prefix == "" {
			f.Comment("UnmarshalGQL implements gqlgen's graphql.Unmarshaler: a string holding the decimal")
			f.Comment("text, or an integer as gqlgen passes it (json.Number from variables, int64 or int from")
			f.Comment("a literal). Empty text and null are the zero ID; negative numbers are errors.")
		} else {
			f.Comment("UnmarshalGQL implements gqlgen's graphql.Unmarshaler: a string holding the text form.")
			f.Comment("Empty text and null are the zero ID; a GraphQL integer is refused (a prefixed ID is text).")
		}
		f.Func().Params(Id("id").Op("*").Id(n)).Id("UnmarshalGQL").Params(Id("v").Any()).Error().Block(
			List(Id("x"), Id("_"), Err()).Op(":=").Qual(pkgCodec, "GQLInt64").Call(Lit(n), Id("v"), Lit(t.prefix == ""), Id("parse"+n)),
			If(Err().Op("!=").Nil()).Block(Return(Err())),
			Op("*").Id("id").Op("=").Id(n).Call(Id("x")),
			Return(Nil()),
		)
	} else {
		f.Comment("UnmarshalGQL implements gqlgen's graphql.Unmarshaler: a string, read as UnmarshalText")
		f.Commentf("reads it. Empty text and null are the zero %s.", n)
		f.Func().Params(Id("id").Op("*").Id(n)).Id("UnmarshalGQL").Params(Id("v").Any()).Error().Block(
			List(Id("s"), Id("_"), Err()).Op(":=").Qual(pkgCodec, "GQLString").Call(Lit(n), Id("v")),
			If(Err().Op("!=").Nil()).Block(Return(Err())),
			Return(Id("id").Dot("UnmarshalText").Call(Index().Byte().Call(Id("s")))),
		)
	}
	f.Line()
}

// renderRegister writes the init function that registers every type of the package with
// idgen.Register, so idgen.Resolve, idgen.Types and the plugins know them.
func renderRegister(f *File, m *pkgModel) {
	f.Comment("The types join the program-wide registry: idgen.Resolve tells a prefixed text ID's type,")
	f.Comment("idgen.Types lists them for the plugins, idgen.CheckPrefixes reports a prefix two share.")
	f.Func().Id("init").Params().BlockFunc(func(g *Group) {
		for _, t := range m.types {
			g.Qual(pkgIdgen, "Register").Call(Qual(pkgIdgen, "Type").Values(Dict{
				Id("Zero"):    zeroValue(t),
				Id("Kind"):    Qual(pkgIdgen, kindConst(t.kind)),
				Id("Prefix"):  Lit(t.prefix),
				Id("Storage"): Qual(pkgIdgen, storageConst(t)),
				Id("Parse"): Func().Params(Id("s").String()).Params(Any(), Error()).Block(
					Return(Id("Parse" + t.name).Call(Id("s"))),
				),
			}))
		}
	})
	f.Line()
}

// invalidText is what String returns for a snowflake ID no reader accepts, in the form
// stringer gives a value it has no name for: "UserID(-1)".
func invalidText(t *idType) Code {
	return Lit(t.name+"(").Op("+").Qual("strconv", "FormatInt").Call(Int64().Call(Id("id")), Lit(10)).Op("+").Lit(")")
}
