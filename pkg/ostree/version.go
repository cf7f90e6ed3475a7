package ostree

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// Release is an rpm-ostree release, "YYYY.N" (`rpm-ostree --version`).
type Release struct {
	Year, Minor int
}

func (r Release) String() string { return fmt.Sprintf("%d.%d", r.Year, r.Minor) }

// AtLeast tells whether r is year.minor or newer.
func (r Release) AtLeast(year, minor int) bool {
	return r.Year > year || r.Year == year && r.Minor >= minor
}

// ParseRelease parses "2025.7" (also "2025.7.1" or "2025.7-1.fc43").
func ParseRelease(s string) (Release, error) {
	year, rest, ok := strings.Cut(strings.TrimSpace(s), ".")
	if !ok {
		return Release{}, fmt.Errorf("rpm-ostree version %q is not YEAR.N", s)
	}
	minor := rest
	if i := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		minor = rest[:i]
	}
	y, err1 := strconv.Atoi(year)
	m, err2 := strconv.Atoi(minor)
	if err1 != nil || err2 != nil || y < 2017 {
		return Release{}, fmt.Errorf("rpm-ostree version %q is not YEAR.N", s)
	}
	return Release{Year: y, Minor: m}, nil
}

// What changed, by release (see DESIGN.md "The rpm-ostree contract").
var (
	// releaseContainerDigests: finalize-deployment compares a container
	// deployment against its image digest, and `deploy <digest>` works on
	// container origins (rpm-ostree v2025.7, commits e47214b7 and 2d021f5d).
	releaseContainerDigests = Release{2025, 7}
)

// releaseCache holds the release once it was read: `rpm-ostree --version`
// runs once per Client (and the clients derived with With).
type releaseCache struct {
	mu  sync.Mutex
	rel *Release
}

// Release returns the rpm-ostree release, running `rpm-ostree --version`
// the first time only.
func (c *Client) Release(ctx context.Context) (Release, error) {
	c.rel.mu.Lock()
	defer c.rel.mu.Unlock()
	if c.rel.rel != nil {
		return *c.rel.rel, nil
	}
	v, err := c.Version(ctx)
	if err != nil {
		return Release{}, err
	}
	r, err := ParseRelease(v.Version)
	if err != nil {
		return Release{}, err
	}
	c.rel.rel = &r
	return r, nil
}
