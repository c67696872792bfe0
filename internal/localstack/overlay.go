// What the stack takes from the rendered deploy/temporal/postgres to run Temporal's server the
// way a cluster runs it: the init container that creates the schema, the server's container and
// the configuration its volume mounts, the setup Job's container, and the ConfigMaps their
// environment reads. Pure: tested without a server.
package localstack

import (
	"fmt"
	"maps"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// The names the overlay gives its parts (deploy/temporal/postgres).
const (
	overlayServer     = "temporal"          // the Deployment, and its container
	overlaySchema     = "schema"            // its init container
	overlaySetup      = "temporal-setup"    // the Job
	overlayConnection = "temporal-postgres" // the ConfigMap a user merges host and user into, and the Secret
)

// overlay is the rendered deploy/temporal/postgres.
type overlay struct {
	schema, server, setup corev1.Container
	// config is where the server's container mounts its configuration, and the files there.
	configMount string
	config      map[string]string
	// configMaps holds every ConfigMap by its rendered name (with kustomize's hash suffix);
	// secrets and fields what connect gives the pods, as the user and the kubelet would.
	configMaps map[string]map[string]string
	secrets    map[string]map[string]string
	fields     map[string]string
}

// parseOverlay finds the overlay's parts among the rendered objects.
func parseOverlay(objs []*unstructured.Unstructured) (*overlay, error) {
	ov := &overlay{configMaps: map[string]map[string]string{}}
	var server *appsv1.Deployment
	var setup *batchv1.Job
	for _, o := range objs {
		var err error
		switch {
		case o.GetKind() == "ConfigMap":
			data, _, _ := unstructured.NestedStringMap(o.Object, "data")
			ov.configMaps[o.GetName()] = data
		case o.GetKind() == "Deployment" && o.GetName() == overlayServer:
			server = &appsv1.Deployment{}
			err = runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, server)
		case o.GetKind() == "Job" && o.GetName() == overlaySetup:
			setup = &batchv1.Job{}
			err = runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, setup)
		}
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", o.GetKind(), o.GetName(), err)
		}
	}
	if server == nil || setup == nil {
		return nil, fmt.Errorf("the overlay renders no Deployment %s or no Job %s", overlayServer, overlaySetup)
	}
	pod := server.Spec.Template.Spec
	var ok [3]bool
	if ov.schema, ok[0] = container(pod.InitContainers, overlaySchema); !ok[0] {
		return nil, fmt.Errorf("the Deployment %s has no init container %s", overlayServer, overlaySchema)
	}
	if ov.server, ok[1] = container(pod.Containers, overlayServer); !ok[1] {
		return nil, fmt.Errorf("the Deployment %s has no container %s", overlayServer, overlayServer)
	}
	if len(setup.Spec.Template.Spec.Containers) != 1 {
		return nil, fmt.Errorf("the Job %s should have one container", overlaySetup)
	}
	ov.setup = setup.Spec.Template.Spec.Containers[0]
	for _, m := range ov.server.VolumeMounts {
		for _, v := range pod.Volumes {
			if v.Name == m.Name && v.ConfigMap != nil {
				ov.configMount, ov.config, ok[2] = m.MountPath, ov.configMaps[v.ConfigMap.Name], true
			}
		}
	}
	if !ok[2] || len(ov.config) == 0 {
		return nil, fmt.Errorf("the container %s mounts no ConfigMap with its configuration", overlayServer)
	}
	return ov, nil
}

func container(cs []corev1.Container, name string) (corev1.Container, bool) {
	for _, c := range cs {
		if c.Name == name {
			return c, true
		}
	}
	return corev1.Container{}, false
}

// role is the PostgreSQL role the overlay's ConfigMap temporal-postgres names.
func (ov *overlay) role() (string, error) {
	name, err := ov.configMapName(overlayConnection)
	if err != nil {
		return "", err
	}
	return ov.configMaps[name]["user"], nil
}

// connect merges a database's address into the ConfigMap temporal-postgres, as the overlay
// asks a user to (configMapGenerator, behavior: merge), and supplies what the cluster would:
// the Secret temporal-postgres the user creates, with the password, and the pod's IP, which
// is 127.0.0.1 here.
func (ov *overlay) connect(host, port, password string) error {
	name, err := ov.configMapName(overlayConnection)
	if err != nil {
		return err
	}
	cm := maps.Clone(ov.configMaps[name])
	cm["host"], cm["port"], cm["tls"] = host, port, "false"
	ov.configMaps[name] = cm
	ov.secrets = map[string]map[string]string{overlayConnection: {"password": password}}
	ov.fields = map[string]string{"status.podIP": "127.0.0.1"}
	return nil
}

// requireAPIKeys sets what a user sets for a server that requires API keys: the JWKS URL in
// the connection's ConfigMap, and the setup Job's key in its Secret (named after the Job).
func (ov *overlay) requireAPIKeys(jwksURL, setupKey string) error {
	name, err := ov.configMapName(overlayConnection)
	if err != nil {
		return err
	}
	ov.configMaps[name]["jwt-key-source"] = jwksURL
	ov.secrets[overlaySetup] = map[string]string{"api-key": setupKey}
	return nil
}

// env is the environment of one of the overlay's containers, once connected.
func (ov *overlay) env(c corev1.Container) ([]string, error) {
	return containerEnv(c, ov.configMaps, ov.secrets, ov.fields)
}

// configMapName is the rendered name of the ConfigMap the overlay generates as base: kustomize
// adds a dash and a hash of its data.
func (ov *overlay) configMapName(base string) (string, error) {
	for name := range ov.configMaps {
		if name == base || strings.HasPrefix(name, base+"-") && !strings.Contains(name[len(base)+1:], "-") {
			return name, nil
		}
	}
	return "", fmt.Errorf("the overlay renders no ConfigMap %s", base)
}

// containerEnv is the environment the kubelet would give c: its values, and its references to
// ConfigMaps, Secrets and the pod's fields resolved, in its order, as NAME=value.
func containerEnv(c corev1.Container, configMaps, secrets map[string]map[string]string, fields map[string]string) ([]string, error) {
	env := make([]string, 0, len(c.Env))
	for _, e := range c.Env {
		v, set, err := envValue(e, configMaps, secrets, fields)
		if err != nil {
			return nil, fmt.Errorf("container %s, %s: %w", c.Name, e.Name, err)
		}
		if set {
			env = append(env, e.Name+"="+v)
		}
	}
	return env, nil
}

// envValue is the variable's value, and whether it is set: an optional key that is missing
// leaves it unset, as the kubelet does.
func envValue(e corev1.EnvVar, configMaps, secrets map[string]map[string]string, fields map[string]string) (string, bool, error) {
	from := e.ValueFrom
	lookup := func(kind string, in map[string]map[string]string, name, key string, optional *bool) (string, bool, error) {
		v, ok := in[name][key]
		if !ok && (optional == nil || !*optional) {
			return "", false, fmt.Errorf("no key %s in %s %s", key, kind, name)
		}
		return v, ok, nil
	}
	switch {
	case from == nil:
		return e.Value, true, nil
	case from.ConfigMapKeyRef != nil:
		return lookup("ConfigMap", configMaps, from.ConfigMapKeyRef.Name, from.ConfigMapKeyRef.Key, from.ConfigMapKeyRef.Optional)
	case from.SecretKeyRef != nil:
		return lookup("Secret", secrets, from.SecretKeyRef.Name, from.SecretKeyRef.Key, from.SecretKeyRef.Optional)
	case from.FieldRef != nil:
		v, ok := fields[from.FieldRef.FieldPath]
		if !ok {
			return "", false, fmt.Errorf("no value for the field %s", from.FieldRef.FieldPath)
		}
		return v, true, nil
	}
	return "", false, fmt.Errorf("a source the stack does not know")
}

// mounted replaces the mount path of the server's configuration in its command line with dir,
// where the stack writes the same files.
func (ov *overlay) mounted(argv []string, dir string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = strings.ReplaceAll(a, ov.configMount, dir)
	}
	return out
}

// checkReleases fails unless the overlay's images carry the releases the stack runs: the
// server's (the server image, and admin-tools of the same release, whose tag goes on with the
// tools' own versions) and the CLI's (the setup Job's).
func (ov *overlay) checkReleases(server, cli string) error {
	for _, c := range []struct {
		image string
		ok    func(tag string) bool
	}{
		{ov.server.Image, func(tag string) bool { return tag == server }},
		{ov.schema.Image, func(tag string) bool { return strings.HasPrefix(tag, server+"-") }},
		{ov.setup.Image, func(tag string) bool { return tag == cli }},
	} {
		_, tag, _ := strings.Cut(c.image[strings.LastIndex(c.image, "/")+1:], ":")
		if !c.ok(tag) {
			return fmt.Errorf("it runs %s, but the stack runs the server %s and the CLI %s: "+
				"change the images, hack/tools.sh, hack/temporalbins and the stack's versions together", c.image, server, cli)
		}
	}
	return nil
}

// nameTypes turns search attributes (name to type) into the setup Job's NAME=TYPE arguments,
// in the order of their names.
func nameTypes(attrs map[string]string) []string {
	out := make([]string, 0, len(attrs))
	for name, typ := range attrs {
		out = append(out, name+"="+typ)
	}
	sort.Strings(out)
	return out
}
