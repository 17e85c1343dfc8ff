// Command api-quantity-spelling prints, for a deterministic set of quantity texts, what
// k8s.io/apimachinery's ParseQuantity makes of each: "<input>\t<String()>" when it parses (String()
// is also what MarshalJSON writes), "<input>\t!" when it does not. tests/api/quantity_test.cc checks
// api::Quantity::Canonical() against this table (tests/api/testdata/quantity-spelling.tsv).
package main

import (
	"bufio"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/api/resource"
)

// inputs combines signs, leading zeros, integer and fraction digits and every suffix, so that each
// branch of ParseQuantity's "reuse the string" test is hit from both sides.
func inputs() []string {
	signs := []string{"", "+", "-"}
	ints := []string{"", "0", "00", "1", "01", "010", "5", "7", "8", "10", "12", "100", "1000", "1500", "1023", "1024",
		"999", "123456", "1000000", "999999999999999999", "1234567890123456789"}
	fracs := []string{"", ".", ".0", ".5", ".500", ".000", ".05", ".123", ".123456789", ".1234567891"}
	suffixes := []string{"", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei",
		"e0", "E3", "e3", "e-3", "e6", "e-9", "e-12", "e18", "e21", "E-1", "e+3"}
	var out []string
	for _, s := range signs {
		for _, i := range ints {
			for _, f := range fracs {
				if i == "" && (f == "" || f == ".") {
					continue
				}
				for _, x := range suffixes {
					out = append(out, s+i+f+x)
				}
			}
		}
	}
	return out
}

func main() {
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for _, in := range inputs() {
		q, err := resource.ParseQuantity(in)
		if err != nil {
			fmt.Fprintf(w, "%s\t!\n", in)
			continue
		}
		fmt.Fprintf(w, "%s\t%s\n", in, q.String())
	}
}
