package world

import (
	"fmt"
	"sort"
	"time"
)

// ViolationKey is a violation's identity: the kind of invariant and what it
// is about (a pool, a node). Episodes are keyed by it, never by a
// violation's text: the text of one ongoing violation changes from sample to
// sample (how many nodes are unavailable, which ones), and keying by it would
// open a new episode, and print a new line, at every sample.
type ViolationKey struct {
	// Kind names the invariant, e.g. "maxUnavailable".
	Kind string
	// Subject is what it is about, e.g. "infra/dpu-worker".
	Subject string
}

func (k ViolationKey) String() string { return k.Kind + " " + k.Subject }

// ViolationEpisode is one stretch of time a violation held: from the first
// sample that showed it to the first that did not.
type ViolationEpisode struct {
	Key ViolationKey
	// Text is the violation as first seen.
	Text       string
	Start, End time.Time
	// Open: the violation still held at the last sample (End is then that
	// sample's time).
	Open bool
}

// Duration is how long the episode lasted (so far, while open).
func (e ViolationEpisode) Duration() time.Duration { return e.End.Sub(e.Start) }

// Violations turns per-sample observations of invariants into episodes, so
// that each violation is told once when it starts and once when it ends. It
// is not safe for concurrent use (the Monitor holds its lock around it) and
// reads no clock: every call says what time it is.
type Violations struct {
	open     map[ViolationKey]int // index into episodes
	episodes []ViolationEpisode
}

// Holds records that the sample at now shows the violation key, described
// by text. It returns the line to print when this starts an episode, ""
// while the episode goes on.
func (v *Violations) Holds(now time.Time, key ViolationKey, text string) string {
	if i, ok := v.open[key]; ok {
		v.episodes[i].End = now
		return ""
	}
	if v.open == nil {
		v.open = map[ViolationKey]int{}
	}
	v.open[key] = len(v.episodes)
	v.episodes = append(v.episodes, ViolationEpisode{Key: key, Text: text, Start: now, End: now, Open: true})
	return "INVARIANT VIOLATED: " + text
}

// Clear records that the sample at now does not show the violation key. It
// returns the line to print when this ends an episode, "" otherwise.
func (v *Violations) Clear(now time.Time, key ViolationKey) string {
	i, ok := v.open[key]
	if !ok {
		return ""
	}
	delete(v.open, key)
	e := &v.episodes[i]
	e.End, e.Open = now, false
	return fmt.Sprintf("invariant restored after %.1fs: %s", e.Duration().Seconds(), e.Text)
}

// Event records a violation that is one event rather than a state (a DPU
// rebooted while its host ran pods): an episode of no duration, told once.
func (v *Violations) Event(now time.Time, key ViolationKey, text string) string {
	v.episodes = append(v.episodes, ViolationEpisode{Key: key, Text: text, Start: now, End: now})
	return "INVARIANT VIOLATED: " + text
}

// Episodes returns every episode so far, in the order they started; open
// ones end at now.
func (v *Violations) Episodes(now time.Time) []ViolationEpisode {
	out := make([]ViolationEpisode, len(v.episodes))
	copy(out, v.episodes)
	for i := range out {
		if out[i].Open && now.After(out[i].End) {
			out[i].End = now
		}
	}
	return out
}

// ViolationTally sums the episodes of one key for the summary.
type ViolationTally struct {
	Key      ViolationKey
	Episodes int
	Longest  time.Duration
	// StillOpen: the last episode had not ended when the rollout did.
	StillOpen bool
	// First is the text of the first episode.
	First string
}

// Tally groups episodes by key, sorted by key.
func Tally(episodes []ViolationEpisode) []ViolationTally {
	byKey := map[ViolationKey]*ViolationTally{}
	var keys []ViolationKey
	for _, e := range episodes {
		t, ok := byKey[e.Key]
		if !ok {
			t = &ViolationTally{Key: e.Key, First: e.Text}
			byKey[e.Key] = t
			keys = append(keys, e.Key)
		}
		t.Episodes++
		t.Longest = max(t.Longest, e.Duration())
		t.StillOpen = e.Open
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	out := make([]ViolationTally, 0, len(keys))
	for _, k := range keys {
		out = append(out, *byKey[k])
	}
	return out
}
