package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/co-cli/co/config"
)

const referenceHeader = "| setting | env var | type | default | allowed values | meaning |"

// docs/configuration.md's reference lists exactly the settings config
// defines, in its order, each with its variable, type, default and allowed
// values as the code has them: a setting added, renamed or given another
// default in config/fields.go fails here until the reference says so.
func TestConfigurationReferenceMatchesCode(t *testing.T) {
	b, err := os.ReadFile("docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := referenceRows(t, string(b))
	var got, want []string
	for _, r := range rows {
		got = append(got, r[0])
	}
	for _, f := range config.Fields() {
		want = append(want, "`"+f.Key+"`")
	}
	if !slices.Equal(got, want) {
		t.Errorf("the reference lists the settings\n%v\nconfig.Fields has\n%v", got, want)
	}
	byKey := map[string][]string{}
	for _, r := range rows {
		byKey[r[0]] = r
	}
	for _, f := range config.Fields() {
		r, ok := byKey["`"+f.Key+"`"]
		if !ok {
			continue
		}
		for i, w := range referenceCells(f) {
			if r[i] != w {
				t.Errorf("%s: the reference's %s is %q, the code's %q", f.Key, []string{"setting", "env var", "type", "default", "allowed values"}[i], r[i], w)
			}
		}
		if r[5] == "" {
			t.Errorf("%s: the reference does not say what it does", f.Key)
		}
	}
}

// A reference row that differs from the code is caught.
func TestConfigurationReferenceCheckCatches(t *testing.T) {
	f := config.Fields()[0]
	cells := referenceCells(f)
	doc := "\n" + referenceHeader + "\n|---|---|---|---|---|---|\n| " + strings.Join(cells, " | ") + " | what |\n"
	if r := referenceRows(t, doc); len(r) != 1 || r[0][3] != cells[3] {
		t.Fatalf("referenceRows = %q", r)
	}
	stale := strings.Replace(doc, cells[3], "`stale`", 1)
	if referenceRows(t, stale)[0][3] == cells[3] {
		t.Error("a changed default was not seen")
	}
}

// referenceCells is what the reference must say of f, cell by cell.
func referenceCells(f config.Field) []string {
	env := "—"
	if f.Env != "" {
		env = "`" + f.Env + "`"
	}
	values := "—"
	if f.Constraint != "" {
		values = strings.ReplaceAll(f.Constraint, "|", `\|`)
	}
	return []string{"`" + f.Key + "`", env, f.Kind.String(), referenceDefault(f.Default), values}
}

func referenceDefault(v any) string {
	switch d := v.(type) {
	case string:
		if d == "" {
			return "—"
		}
		return "`" + d + "`"
	case bool, int:
		return fmt.Sprintf("`%v`", d)
	case float64:
		return "`" + strconv.FormatFloat(d, 'g', -1, 64) + "`"
	case []string:
		if len(d) == 0 {
			return "—"
		}
		return "`" + strings.Join(d, "`, `") + "`"
	}
	return "—" // rules, servers, schedules: none by default
}

// referenceRows returns the cells of the reference table's rows.
func referenceRows(t *testing.T, doc string) [][]string {
	t.Helper()
	_, rest, ok := strings.Cut(doc, "\n"+referenceHeader+"\n")
	if !ok {
		t.Fatalf("docs/configuration.md has no table %q", referenceHeader)
	}
	var rows [][]string
	for _, line := range strings.Split(rest, "\n")[1:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		var cells []string
		for _, c := range splitRow(line) {
			cells = append(cells, strings.TrimSpace(c))
		}
		if len(cells) != 6 {
			t.Fatalf("reference row with %d cells, want 6: %s", len(cells), line)
		}
		rows = append(rows, cells)
	}
	return rows
}

// splitRow splits a table row at the | that are not escaped (\|).
func splitRow(line string) []string {
	line = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(line), "|"), "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		if line[i] == '\\' && i+1 < len(line) && line[i+1] == '|' {
			cur.WriteString(`\|`)
			i++
			continue
		}
		if line[i] == '|' {
			cells = append(cells, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteByte(line[i])
	}
	return append(cells, cur.String())
}
