// Command kube is one multi-call binary holding the real Kubernetes components
// that the lab runs and that the local kind node image carries (kubelet and
// kubeadm besides the lab's), built from the official Go modules
// (k8s.io/kubernetes and its staging modules at one release) and etcd's own
// server module.
//
// The component is chosen by the name the binary is called by (a link named
// kube-proxy behaves as kube-proxy) or, failing that, by the first argument
// (`kube kube-proxy --version`). Each component's entry is the same code as
// upstream's cmd/<name>/<name>.go, so flags, logs and exit codes are theirs.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	_ "time/tzdata" // upstream's apiserver and controller-manager embed it for CronJob time zones

	"go.etcd.io/etcd/server/v3/etcdmain"
	"k8s.io/component-base/cli"
	"k8s.io/component-base/logs"
	_ "k8s.io/component-base/logs/json/register"          // JSON log format, as upstream registers it
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // client-go metrics
	_ "k8s.io/component-base/metrics/prometheus/version"  // version metric
	kubectl "k8s.io/kubectl/pkg/cmd"
	kubectlutil "k8s.io/kubectl/pkg/cmd/util"
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	proxy "k8s.io/kubernetes/cmd/kube-proxy/app"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
	kubeadm "k8s.io/kubernetes/cmd/kubeadm/app"
	kubeadmerrors "k8s.io/kubernetes/cmd/kubeadm/app/util/errors"
	kubelet "k8s.io/kubernetes/cmd/kubelet/app"

	_ "k8s.io/client-go/plugin/pkg/client/auth" // kubectl's client auth plugins, as upstream's kubectl
)

// components maps each official binary name to upstream's main body.
var components = map[string]func() int{
	"kube-apiserver":          func() int { return cli.Run(apiserver.NewAPIServerCommand()) },
	"kube-controller-manager": func() int { return cli.Run(controllermanager.NewControllerManagerCommand()) },
	"kube-scheduler":          func() int { return cli.Run(scheduler.NewSchedulerCommand()) },
	"kube-proxy":              func() int { return cli.Run(proxy.NewProxyCommand()) },
	"kubectl":                 runKubectl,
	"etcd":                    runEtcd,
	// kind's node image runs these two on every node (kubeadm init/join, then kubelet).
	"kubelet": func() int { return cli.Run(kubelet.NewKubeletCommand(context.Background())) },
	"kubeadm": runKubeadm,
}

func runKubeadm() int {
	kubeadmerrors.HandleError(kubeadm.Run()) // prints and exits non-zero on error, as upstream's kubeadm
	return 0
}

func runKubectl() int {
	logs.GlogSetter(kubectl.GetLogVerbosity(os.Args)) // nolint:errcheck
	if err := cli.RunNoErrOutput(kubectl.NewDefaultKubectlCommand()); err != nil {
		kubectlutil.CheckErr(err) // prints and exits, as upstream's kubectl does
	}
	return 0
}

func runEtcd() int {
	etcdmain.Main(os.Args) // exits by itself on error
	return 0
}

func main() {
	name := filepath.Base(os.Args[0])
	if _, ok := components[name]; !ok {
		if len(os.Args) < 2 {
			usage()
			os.Exit(2)
		}
		name = os.Args[1]
		if _, ok := components[name]; !ok {
			fmt.Fprintf(os.Stderr, "kube: unknown component %q\n", name)
			usage()
			os.Exit(2)
		}
		// The component sees itself as argv[0], exactly as if called by its own name.
		os.Args = os.Args[1:]
	}
	os.Exit(components[name]())
}

func usage() {
	names := make([]string, 0, len(components))
	for n := range components {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintf(os.Stderr, "usage: kube <component> [flags]  (or call it through a link named after the component)\ncomponents: %v\n", names)
}
