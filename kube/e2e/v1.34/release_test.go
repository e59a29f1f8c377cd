package e2e

// What v1.34's test/e2e/e2e_test.go does beyond the shared test main (main_test.go).

import (
	"flag"

	// reconfigure framework, as upstream's test main does
	_ "k8s.io/kubernetes/test/utils/format"
)

// registerReleaseFlags registers nothing: this release's test main has no flags beyond the shared ones.
func registerReleaseFlags(*flag.FlagSet) {}
