package osdouble

import (
	"fmt"
	"strings"
)

// optSpec is one option of a command, parsed the way GLib's GOptionContext
// parses rpm-ostree's options.
type optSpec struct {
	long  string
	short byte
	arg   bool // takes a value: --long=V, --long V, -sV, -s V
}

// parsedOpts maps long option names to the values given (one "" per flag use).
type parsedOpts map[string][]string

func (p parsedOpts) has(name string) bool { return len(p[name]) > 0 }

func (p parsedOpts) value(name string) string {
	if v := p[name]; len(v) > 0 {
		return v[len(v)-1]
	}
	return ""
}

// usageError is a command line error: rpm-ostree prints it and exits 1.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func parseOptions(args []string, specs []optSpec) (parsedOpts, []string, error) {
	byLong := map[string]optSpec{}
	byShort := map[byte]optSpec{}
	for _, s := range specs {
		byLong[s.long] = s
		if s.short != 0 {
			byShort[s.short] = s
		}
	}
	opts := parsedOpts{}
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			pos = append(pos, args[i+1:]...)
			return opts, pos, nil
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			s, ok := byLong[name]
			if !ok {
				return nil, nil, &usageError{fmt.Sprintf("Unknown option %s", a)}
			}
			if s.arg && !hasVal {
				if i+1 >= len(args) {
					return nil, nil, &usageError{fmt.Sprintf("Missing argument for --%s", name)}
				}
				i++
				val = args[i]
			} else if !s.arg && hasVal {
				return nil, nil, &usageError{fmt.Sprintf("Unexpected value for option --%s", name)}
			}
			opts[name] = append(opts[name], val)
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				s, ok := byShort[a[j]]
				if !ok {
					return nil, nil, &usageError{fmt.Sprintf("Unknown option -%c", a[j])}
				}
				if !s.arg {
					opts[s.long] = append(opts[s.long], "")
					continue
				}
				val := a[j+1:]
				if val == "" {
					if i+1 >= len(args) {
						return nil, nil, &usageError{fmt.Sprintf("Missing argument for -%c", a[j])}
					}
					i++
					val = args[i]
				}
				opts[s.long] = append(opts[s.long], val)
				break
			}
		default:
			pos = append(pos, a)
		}
	}
	return opts, pos, nil
}
