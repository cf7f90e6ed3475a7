package main

import (
	"cmp"
	"fmt"
	"html"
	"math"
	"os"
	"slices"
	"strings"
)

// The plot's canvas and margins, in SVG user units.
const (
	svgW, svgH               = 640.0, 420.0
	svgLeft, svgRight        = 70.0, 110.0
	svgTop, svgBottom        = 40.0, 50.0
	svgMinX, svgMinY         = 0.5, 1.0 // stage_ratio and p99_ratio floors of the axes
	svgTickFactor            = 2.0      // log axes: a tick per doubling
	svgFrontierColor         = "#1f77b4"
	svgPolicyColor           = "#d62728"
	svgGoalColor             = "#2ca02c"
	svgPointRadius           = 4.0
	svgLabelDX, svgLabelDY   = 6.0, -6.0
	svgAxisLabelX, svgTitleY = svgLeft + (svgW-svgLeft-svgRight)/2, 22.0
)

// frontierSVG draws the curve: each arm at its median stage_ratio (x) and
// p99_ratio (y), both on log axes, with the range of its trials as error
// bars; the frontier's targets joined in order of target, the policies
// (none, writeback, the default) as squares, and the goal's corner (p99 <=
// goalP99Ratio, stage <= goalStageRatio) shaded.
func frontierSVG(r *report) string {
	var pts []policySumm
	for _, s := range r.Policies {
		if s.StageRatio.Median > 0 && s.P99Ratio.Median > 0 {
			pts = append(pts, s)
		}
	}
	maxX, maxY := goalStageRatio*1.5, goalP99Ratio*2
	for _, s := range pts {
		maxX, maxY = math.Max(maxX, s.StageRatio.Max), math.Max(maxY, s.P99Ratio.Max)
	}
	maxX, maxY = roundUpPow2(maxX*1.2), roundUpPow2(maxY*1.2)
	x := func(v float64) float64 { return logPos(v, svgMinX, maxX, svgLeft, svgW-svgRight) }
	y := func(v float64) float64 { return logPos(v, svgMinY, maxY, svgH-svgBottom, svgTop) }

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" font-family="sans-serif" font-size="11">`+"\n", svgW, svgH, svgW, svgH)
	fmt.Fprintf(&b, `<rect width="%g" height="%g" fill="white"/>`+"\n", svgW, svgH)
	fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="middle" font-size="13">%s</text>`+"\n", svgAxisLabelX, svgTitleY,
		html.EscapeString(fmt.Sprintf("bench-io frontier: etcd WAL fsync p99 against stage time (%s, %s)", r.Started.Format("2006-01-02"), r.Device)))
	// The goal's corner.
	fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" fill-opacity="0.12"/>`+"\n",
		x(svgMinX), y(goalP99Ratio), x(goalStageRatio)-x(svgMinX), y(svgMinY)-y(goalP99Ratio), svgGoalColor)
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="%s">goal: p99 &lt;= %gx, stage &lt;= %gx</text>`+"\n", x(svgMinX)+4, y(goalP99Ratio)-4, svgGoalColor, goalP99Ratio, goalStageRatio)
	// Axes with a tick per doubling.
	for v := svgMinX; v <= maxX*1.0001; v *= svgTickFactor {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%g" x2="%.1f" y2="%g" stroke="#ddd"/><text x="%.1f" y="%g" text-anchor="middle">%g</text>`+"\n",
			x(v), svgTop, x(v), svgH-svgBottom, x(v), svgH-svgBottom+15, v)
	}
	for v := svgMinY; v <= maxY*1.0001; v *= svgTickFactor {
		fmt.Fprintf(&b, `<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" stroke="#ddd"/><text x="%g" y="%.1f" text-anchor="end">%g</text>`+"\n",
			svgLeft, y(v), svgW-svgRight, y(v), svgLeft-5, y(v)+4, v)
	}
	fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="middle">stage time / none's (median, range over trials)</text>`+"\n", svgAxisLabelX, svgH-12)
	fmt.Fprintf(&b, `<text transform="translate(16 %g) rotate(-90)" text-anchor="middle">fsync p99 / idle p99</text>`+"\n", svgTop+(svgH-svgTop-svgBottom)/2)
	// The frontier's line, in order of target.
	var front []policySumm
	for _, s := range pts {
		if s.Frontier {
			front = append(front, s)
		}
	}
	slices.SortFunc(front, func(a, b policySumm) int { return cmp.Compare(a.TargetMs.Median, b.TargetMs.Median) })
	if len(front) > 1 {
		var path []string
		for _, s := range front {
			path = append(path, fmt.Sprintf("%.1f,%.1f", x(s.StageRatio.Median), y(s.P99Ratio.Median)))
		}
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s"/>`+"\n", strings.Join(path, " "), svgFrontierColor)
	}
	for i, s := range pts {
		color, label := svgPolicyColor, s.Policy
		if s.Frontier {
			color, label = svgFrontierColor, fmt.Sprintf("%.3g ms", s.TargetMs.Median)
		}
		if s.Default {
			label += " (default)"
		}
		if s.Governed {
			label += fmt.Sprintf(" held %d/%d", s.Held, s.Trials)
		}
		cx, cy := x(s.StageRatio.Median), y(s.P99Ratio.Median)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-opacity="0.5"/>`+"\n", x(s.StageRatio.Min), cy, x(s.StageRatio.Max), cy, color)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-opacity="0.5"/>`+"\n", cx, y(s.P99Ratio.Min), cx, y(s.P99Ratio.Max), color)
		if s.Frontier {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="%g" fill="%s"/>`+"\n", cx, cy, svgPointRadius, color)
		} else {
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%g" height="%g" fill="%s"/>`+"\n", cx-svgPointRadius, cy-svgPointRadius, 2*svgPointRadius, 2*svgPointRadius, color)
		}
		dy := svgLabelDY
		if !s.Frontier && i%2 == 1 {
			dy = -svgLabelDY * 2.5 // alternate policies' labels below, so neighbours do not overlap
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="%s">%s</text>`+"\n", cx+svgLabelDX, cy+dy, color, html.EscapeString(label))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// logPos maps v in [lo, hi] on a log scale onto [from, to], clamped.
func logPos(v, lo, hi, from, to float64) float64 {
	v = math.Min(math.Max(v, lo), hi)
	return from + (to-from)*math.Log(v/lo)/math.Log(hi/lo)
}

func roundUpPow2(v float64) float64 { return math.Pow(2, math.Ceil(math.Log2(v))) }

func writeSVG(path string, r *report) error {
	return os.WriteFile(path, []byte(frontierSVG(r)), 0o644)
}
