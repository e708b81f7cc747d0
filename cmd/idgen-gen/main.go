package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/idgen/idgen"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("idgen-gen: ")
	if err := run(os.Stdout, os.Stderr, os.Args[1:]); err != nil {
		if err != errUsage {
			log.Print(err)
		}
		os.Exit(2)
	}
}

// errUsage means the usage was printed already.
var errUsage = fmt.Errorf("usage")

func run(stdout, stderr io.Writer, args []string) error {
	if len(args) > 0 && args[0] == "decode" {
		return runDecode(stdout, stderr, args[1:])
	}
	fs := flag.NewFlagSet("idgen-gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	tags := fs.String("tags", "", "comma-separated build tags to apply")
	dry := fs.Bool("n", false, "print what would be written instead of writing it")
	version := fs.Bool("version", false, "print the idgen release this generator belongs to and exit")
	gormTypes := fs.Bool("gorm", false, "also write GormDBDataType methods (importing gorm.io/gorm): native uuid columns on PostgreSQL under AutoMigrate")
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: idgen-gen [-tags a,b] [-n] [-gorm] [packages]
       idgen-gen decode [-layout classic] ID
       idgen-gen -version

Writes NAME_idgen.go with typed ID types for the types annotated //idgen:KIND in each
package (default: the current directory). Kinds: snowflake (int64), number (string),
uuid7 ([16]byte), typeid ([16]byte), objectid ([12]byte). Example:

	//idgen:snowflake prefix=usr
	type UserID int64

	//idgen:number prefix=ORD time=20060102150405 zone=Asia/Shanghai
	type OrderNo string

The full annotation grammar: go doc github.com/idgen/idgen/cmd/idgen-gen

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return nil
		}
		return errUsage
	}
	if *version {
		fmt.Fprintln(stdout, "idgen-gen", idgen.Version)
		return nil
	}
	patterns := fs.Args()
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	var tagList []string
	if *tags != "" {
		tagList = strings.Split(*tags, ",")
	}
	pkgs, err := load("", patterns, tagList)
	if err != nil {
		return err
	}
	files, genErr := generate(pkgs, options{gorm: *gormTypes})
	if genErr != nil {
		return relativize(genErr)
	}
	if *dry {
		for _, f := range files {
			if f.content == nil {
				fmt.Fprintf(stdout, "# would remove %s\n", f.path)
				continue
			}
			fmt.Fprintf(stdout, "# %s\n%s", f.path, f.content)
		}
		return nil
	}
	return write(files)
}

// relativize shortens absolute file names in errors to paths relative to the current
// directory, as the go command prints them.
func relativize(err error) error {
	wd, werr := os.Getwd()
	if werr != nil {
		return err
	}
	msg := err.Error()
	var out []string
	for _, line := range strings.Split(msg, "\n") {
		if i := strings.Index(line, ":"); i > 0 && filepath.IsAbs(line[:i]) {
			if rel, rerr := filepath.Rel(wd, line[:i]); rerr == nil {
				line = rel + line[i:]
			}
		}
		// A second position in the line (where a clashing prefix was first given).
		line = strings.ReplaceAll(line, wd+string(filepath.Separator), "")
		out = append(out, line)
	}
	return fmt.Errorf("%s", strings.Join(out, "\n"))
}
