package main

import (
	configclientset "github.com/openshift/client-go/config/clientset/versioned"
	machineclientset "github.com/openshift/client-go/machine/clientset/versioned"
	mcfgclientset "github.com/openshift/client-go/machineconfiguration/clientset/versioned"
	operatorclientset "github.com/openshift/client-go/operator/clientset/versioned"
	"k8s.io/client-go/kubernetes"
)

// The MCO's controllers each get clients with their own user agent, as its
// clients.Builder's ...OrDie methods make them; a config that cannot make a
// client is a programming error there too.

func kubeClient(c *mcoContext, name string) kubernetes.Interface {
	return kubernetes.NewForConfigOrDie(c.client(name))
}

func mcfgClient(c *mcoContext, name string) mcfgclientset.Interface {
	return mcfgclientset.NewForConfigOrDie(c.client(name))
}

func configClient(c *mcoContext, name string) configclientset.Interface {
	return configclientset.NewForConfigOrDie(c.client(name))
}

func operatorClient(c *mcoContext, name string) operatorclientset.Interface {
	return operatorclientset.NewForConfigOrDie(c.client(name))
}

func machineClient(c *mcoContext, name string) machineclientset.Interface {
	return machineclientset.NewForConfigOrDie(c.client(name))
}
