package e2e

// What v1.36's test/e2e/e2e_test.go does beyond the shared test main (main_test.go).

import (
	"flag"

	"k8s.io/kubernetes/test/e2e/invariants/logcheck"

	// reconfigure framework, as upstream's test main does
	_ "k8s.io/kubernetes/test/utils/format"
)

// registerReleaseFlags registers logcheck's flags, which the test main of this release registers after the cluster's.
func registerReleaseFlags(flags *flag.FlagSet) {
	logcheck.RegisterFlags(flags)
}
