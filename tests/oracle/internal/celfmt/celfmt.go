// Package celfmt prints a CEL value as a CEL literal (or constructor call),
// deterministically, so that results can be compared as strings.
//
// Rules (see README.md):
//
//	bool        true / false
//	int         -3
//	uint        3u
//	double      1.5, 2.0, double("NaN"), double("Infinity"), double("-Infinity")
//	            (Go strconv 'f' format with shortest precision, ".0" appended
//	            when there is no '.', as cel-go's own formatter does)
//	string      'abc' (single quotes; \\ \' \a \b \f \n \r \t \v escaped,
//	            other non-printable runes as \uXXXX / \UXXXXXXXX, invalid
//	            UTF-8 bytes as \xHH)
//	bytes       b'abc' (printable ASCII except ' and \ as is, all else \xHH)
//	null        null
//	list        [1, 2] (", " separated)
//	map         {'a': 1, 'b': 2} (entries sorted by the formatted key)
//	duration    duration("1.5s")   (seconds, shortest 'f' format)
//	timestamp   timestamp("2024-01-02T03:04:05Z") (UTC, RFC 3339 nano)
//	optional    optional.of(x) / optional.none()
//	type        the type name, e.g. int, list, kubernetes.DRADevice
//	quantity    quantity("1Gi")   (resource.Quantity.String())
//	semver      semver("1.2.3")
//	ip / cidr   ip("10.0.0.1") / cidr("10.0.0.0/8")
//	url         url("https://example.com/x")
//
// Anything else falls back to cel-go's types.Format.
package celfmt

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	apiservercel "k8s.io/apiserver/pkg/cel"
)

// Format returns the literal for v.
func Format(v ref.Val) string {
	var sb strings.Builder
	format(&sb, v)
	return sb.String()
}

func format(sb *strings.Builder, v ref.Val) {
	switch v := v.(type) {
	case types.Bool:
		if v {
			sb.WriteString("true")
		} else {
			sb.WriteString("false")
		}
	case types.Int:
		sb.WriteString(strconv.FormatInt(int64(v), 10))
	case types.Uint:
		sb.WriteString(strconv.FormatUint(uint64(v), 10))
		sb.WriteString("u")
	case types.Double:
		f := float64(v)
		switch {
		case math.IsNaN(f):
			sb.WriteString(`double("NaN")`)
		case math.IsInf(f, 1):
			sb.WriteString(`double("Infinity")`)
		case math.IsInf(f, -1):
			sb.WriteString(`double("-Infinity")`)
		default:
			s := strconv.FormatFloat(f, 'f', -1, 64)
			sb.WriteString(s)
			if !strings.ContainsRune(s, '.') {
				sb.WriteString(".0")
			}
		}
	case types.String:
		sb.WriteString(QuoteString(string(v)))
	case types.Bytes:
		sb.WriteString(quoteBytes([]byte(v)))
	case types.Null:
		sb.WriteString("null")
	case types.Duration:
		fmt.Fprintf(sb, `duration("%ss")`, strconv.FormatFloat(v.Duration.Seconds(), 'f', -1, 64))
	case types.Timestamp:
		fmt.Fprintf(sb, `timestamp("%s")`, v.Time.UTC().Format(time.RFC3339Nano))
	case *types.Optional:
		if v.HasValue() {
			sb.WriteString("optional.of(")
			format(sb, v.GetValue())
			sb.WriteString(")")
		} else {
			sb.WriteString("optional.none()")
		}
	case *types.Type:
		sb.WriteString(v.TypeName())
	case apiservercel.Quantity:
		fmt.Fprintf(sb, "quantity(%s)", strconv.Quote(v.Quantity.String()))
	case apiservercel.Semver:
		fmt.Fprintf(sb, "semver(%s)", strconv.Quote(v.Version.String()))
	case apiservercel.IP:
		fmt.Fprintf(sb, "ip(%s)", strconv.Quote(v.Addr.String()))
	case apiservercel.CIDR:
		fmt.Fprintf(sb, "cidr(%s)", strconv.Quote(v.Prefix.String()))
	case apiservercel.URL:
		fmt.Fprintf(sb, "url(%s)", strconv.Quote(v.URL.String()))
	default:
		if l, ok := v.(traits.Lister); ok {
			formatList(sb, l)
			return
		}
		if m, ok := v.(traits.Mapper); ok {
			formatMap(sb, m)
			return
		}
		sb.WriteString(types.Format(v))
	}
}

func formatList(sb *strings.Builder, l traits.Lister) {
	sb.WriteString("[")
	n, _ := l.Size().(types.Int)
	for i := types.Int(0); i < n; i++ {
		if i > 0 {
			sb.WriteString(", ")
		}
		format(sb, l.Get(i))
	}
	sb.WriteString("]")
}

func formatMap(sb *strings.Builder, m traits.Mapper) {
	type entry struct{ k, v string }
	var entries []entry
	for it := m.Iterator(); it.HasNext() == types.True; {
		k := it.Next()
		v, _ := m.Find(k)
		entries = append(entries, entry{Format(k), Format(v)})
	}
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].k < entries[j].k })
	sb.WriteString("{")
	for i, e := range entries {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(e.k)
		sb.WriteString(": ")
		sb.WriteString(e.v)
	}
	sb.WriteString("}")
}

// QuoteString returns s as a single-quoted CEL string literal.
func QuoteString(s string) string {
	var sb strings.Builder
	sb.WriteByte('\'')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			fmt.Fprintf(&sb, `\x%02x`, s[i])
			i++
			continue
		}
		i += size
		switch r {
		case '\\':
			sb.WriteString(`\\`)
		case '\'':
			sb.WriteString(`\'`)
		case '\a':
			sb.WriteString(`\a`)
		case '\b':
			sb.WriteString(`\b`)
		case '\f':
			sb.WriteString(`\f`)
		case '\n':
			sb.WriteString(`\n`)
		case '\r':
			sb.WriteString(`\r`)
		case '\t':
			sb.WriteString(`\t`)
		case '\v':
			sb.WriteString(`\v`)
		default:
			switch {
			case unicode.IsPrint(r):
				sb.WriteRune(r)
			case r <= 0xFFFF:
				fmt.Fprintf(&sb, `\u%04x`, r)
			default:
				fmt.Fprintf(&sb, `\U%08x`, r)
			}
		}
	}
	sb.WriteByte('\'')
	return sb.String()
}

func quoteBytes(b []byte) string {
	var sb strings.Builder
	sb.WriteString("b'")
	for _, c := range b {
		if c >= 0x20 && c < 0x7f && c != '\'' && c != '\\' {
			sb.WriteByte(c)
		} else {
			fmt.Fprintf(&sb, `\x%02x`, c)
		}
	}
	sb.WriteByte('\'')
	return sb.String()
}
