package scale

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/client-go/kubernetes"
)

// scrape is one read of a /metrics endpoint.
type scrape map[string]*dto.MetricFamily

func parseScrape(b []byte) (scrape, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("parsing metrics: %w", err)
	}
	return fams, nil
}

// scrapeAPIServer reads the apiserver's /metrics with the admin client.
func scrapeAPIServer(ctx context.Context, kube kubernetes.Interface) (scrape, error) {
	b, err := kube.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the apiserver's /metrics: %w", err)
	}
	return parseScrape(b)
}

// scrapeURL reads a plain-HTTP /metrics on loopback (the controller's).
func scrapeURL(ctx context.Context, url string) (scrape, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("reading %s: %s", url, resp.Status)
	}
	return parseScrape(b)
}

func labelsOf(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

func matches(m *dto.Metric, want map[string]string) bool {
	l := labelsOf(m)
	for k, v := range want {
		if l[k] != v {
			return false
		}
	}
	return true
}

// counterSum sums a counter family's series that carry the labels want,
// grouped by the label by ("" sums everything).
func (s scrape) counterSum(name string, want map[string]string, by string) map[string]float64 {
	out := map[string]float64{}
	f := s[name]
	if f == nil {
		return out
	}
	for _, m := range f.GetMetric() {
		if !matches(m, want) {
			continue
		}
		key := ""
		if by != "" {
			key = labelsOf(m)[by]
		}
		out[key] += m.GetCounter().GetValue()
	}
	return out
}

// histogram is a cumulative histogram: counts per upper bound.
type histogram struct {
	bounds []float64 // ascending, +Inf last
	counts []float64 // cumulative
}

// histogramOf sums the series of a histogram family that carry want.
func (s scrape) histogramOf(name string, want map[string]string) histogram {
	f := s[name]
	acc := map[float64]float64{}
	if f != nil {
		for _, m := range f.GetMetric() {
			if !matches(m, want) {
				continue
			}
			h := m.GetHistogram()
			for _, b := range h.GetBucket() {
				if !math.IsInf(b.GetUpperBound(), 1) {
					acc[b.GetUpperBound()] += float64(b.GetCumulativeCount())
				}
			}
			// The +Inf bucket (explicit in the text format or not) is the count.
			acc[math.Inf(1)] += float64(h.GetSampleCount())
		}
	}
	var h histogram
	for b := range acc {
		h.bounds = append(h.bounds, b)
	}
	sort.Float64s(h.bounds)
	for _, b := range h.bounds {
		h.counts = append(h.counts, acc[b])
	}
	return h
}

// minus returns h - earlier (same buckets: the same process's histogram
// at two times).
func (h histogram) minus(earlier histogram) histogram {
	before := map[float64]float64{}
	for i, b := range earlier.bounds {
		before[b] = earlier.counts[i]
	}
	out := histogram{bounds: h.bounds}
	for i, b := range h.bounds {
		out.counts = append(out.counts, h.counts[i]-before[b])
	}
	return out
}

func (h histogram) total() float64 {
	if len(h.counts) == 0 {
		return 0
	}
	return h.counts[len(h.counts)-1]
}

// quantile interpolates inside the bucket as PromQL's histogram_quantile
// does; it also returns that bucket's upper bound (what the metric can
// promise). NaN when empty.
func (h histogram) quantile(q float64) (value, bound float64) {
	n := h.total()
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	rank := q * n
	lower, prev := 0.0, 0.0
	for i, b := range h.bounds {
		c := h.counts[i]
		if c >= rank {
			if math.IsInf(b, 1) {
				return lower, b // PromQL returns the last finite bound
			}
			if c == prev {
				return b, b
			}
			return lower + (b-lower)*(rank-prev)/(c-prev), b
		}
		lower, prev = b, c
	}
	return lower, math.Inf(1)
}

// watchEvents sums apiserver_watch_events_total by resource (the label is
// "resource" in current releases, "kind" in older ones).
func (s scrape) watchEvents() map[string]float64 {
	out := map[string]float64{}
	f := s["apiserver_watch_events_total"]
	if f == nil {
		return out
	}
	for _, m := range f.GetMetric() {
		l := labelsOf(m)
		key := l["resource"]
		if key == "" {
			key = strings.ToLower(l["kind"])
		}
		if g := l["group"]; g != "" {
			key += "." + g
		}
		out[key] += m.GetCounter().GetValue()
	}
	return out
}

func minusMap(a, b map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range a {
		if d := v - b[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}
