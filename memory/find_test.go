package memory

import (
	"reflect"
	"testing"
)

// Find narrows the list as a query is typed: every word as the start of a
// word, all of them; nothing typed lists all, pinned first then newest;
// an id prefix finds its memory; browsing does not count as use.
func TestFindAsYouType(t *testing.T) {
	s := open(t)
	cat := save(t, s, "The cat is called Miso.", "pets")
	stand := save(t, s, "Standup is at 9:30 on weekdays.")
	tabs := save(t, s, "Prefers tabs over spaces in Go code.", "code")
	if _, err := s.Pin(stand.ID, true); err != nil {
		t.Fatal(err)
	}

	all, n, err := s.Find("  ", 0)
	if err != nil || n != 3 || !reflect.DeepEqual(ids(all), []string{stand.ID, tabs.ID, cat.ID}) {
		t.Fatalf("Find(\"\") = %v, %d, %v; want pinned then newest", ids(all), n, err)
	}
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"m", []string{cat.ID}},          // one letter: the start of "Miso"
		{"mis", []string{cat.ID}},        // half a word
		{"the ca", []string{cat.ID}},     // a common word counts, every word must match
		{"cat standup", nil},             // all words, not any
		{"pet", []string{cat.ID}},        // tags too
		{"spac", []string{tabs.ID}},      // a stemmed word found by its start
		{"weekdays", []string{stand.ID}}, // a whole word typed (stemmed "weekdai" in the index)
		{"called miso", []string{cat.ID}},
		{`"mi"so OR -x*`, nil},         // operators are only words here
		{cat.ID[:5], []string{cat.ID}}, // an id prefix
	} {
		got, n, err := s.Find(tc.q, 0)
		if err != nil {
			t.Fatalf("Find(%q): %v", tc.q, err)
		}
		if !reflect.DeepEqual(ids(got), tc.want) || n != len(tc.want) {
			t.Errorf("Find(%q) = %v (%d); want %v", tc.q, ids(got), n, tc.want)
		}
	}
	got, n, err := s.Find("", 2)
	if err != nil || len(got) != 2 || n != 3 {
		t.Fatalf("Find with limit 2 = %d of %d, %v", len(got), n, err)
	}
	m, err := s.Get(cat.ID)
	if err != nil || !m.Used.IsZero() {
		t.Fatalf("Find marked %s as used: %v, %v", cat.ID, m.Used, err)
	}
}
