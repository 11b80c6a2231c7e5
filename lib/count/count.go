// Package count writes a number with its noun, singular for one: "1
// model", "3 models", "0 models". Leaf: every count co shows a person
// goes through it, so none reads "1 models".
package count

import "strconv"

// Of is n and the noun: one when n is 1 (or -1), else many, or one with
// an "s" when many is not given ("entry", "entries").
func Of(n int, one string, many ...string) string {
	word := one
	if n != 1 && n != -1 {
		word = one + "s"
		if len(many) > 0 {
			word = many[0]
		}
	}
	return strconv.Itoa(n) + " " + word
}
