// The Temporal overlay as shipped is one the stack can run: its images' releases, its
// generated ConfigMap names and the environment its containers resolve.
package localstack

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

func TestContainerEnvResolvesWhatTheKubeletWould(t *testing.T) {
	configMaps := map[string]map[string]string{"conn-abc123": {"host": "db", "port": "5432"}}
	secrets := map[string]map[string]string{"conn": {"password": "hunter2"}}
	fields := map[string]string{"status.podIP": "127.0.0.1"}
	ref := func(name, key string) *corev1.EnvVarSource {
		return &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: name}, Key: key}}
	}
	optional := func(s *corev1.EnvVarSource) *corev1.EnvVarSource {
		s.ConfigMapKeyRef.Optional = ptr.To(true)
		return s
	}
	for _, tc := range []struct {
		name string
		env  []corev1.EnvVar
		want []string
		err  string
	}{
		{"a value", []corev1.EnvVar{{Name: "A", Value: "1"}}, []string{"A=1"}, ""},
		{"a ConfigMap key", []corev1.EnvVar{{Name: "H", ValueFrom: ref("conn-abc123", "host")}}, []string{"H=db"}, ""},
		{"a Secret key", []corev1.EnvVar{{Name: "P", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: "conn"}, Key: "password"}}}}, []string{"P=hunter2"}, ""},
		{"the pod's IP", []corev1.EnvVar{{Name: "IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}}},
			[]string{"IP=127.0.0.1"}, ""},
		{"in order", []corev1.EnvVar{{Name: "B", Value: "2"}, {Name: "A", Value: "1"}}, []string{"B=2", "A=1"}, ""},
		{"a key the ConfigMap lacks", []corev1.EnvVar{{Name: "U", ValueFrom: ref("conn-abc123", "user")}}, nil, "no key user in ConfigMap conn-abc123"},
		{"an optional key it lacks, left unset", []corev1.EnvVar{{Name: "A", Value: "1"}, {Name: "U", ValueFrom: optional(ref("conn-abc123", "user"))}},
			[]string{"A=1"}, ""},
		{"a field the stack lacks", []corev1.EnvVar{{Name: "N", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}}},
			nil, "no value for the field spec.nodeName"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := containerEnv(corev1.Container{Name: "c", Env: tc.env}, configMaps, secrets, fields)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestConfigMapNameFindsTheGeneratedNameWithItsHash(t *testing.T) {
	ov := &overlay{configMaps: map[string]map[string]string{"temporal-postgres-8h2k9m5t6c": {}, "temporal-server-5b7dc4f8gt": {}}}
	name, err := ov.configMapName("temporal-postgres")
	require.NoError(t, err)
	require.Equal(t, "temporal-postgres-8h2k9m5t6c", name)
	_, err = ov.configMapName("temporal")
	require.Error(t, err, "temporal-postgres-<hash> is not generated from temporal")
}

func TestTheReleasesOfTheOverlaysImagesMustBeTheStacks(t *testing.T) {
	ov := &overlay{
		server: corev1.Container{Image: "temporalio/server:1.29.1"},
		schema: corev1.Container{Image: "temporalio/admin-tools:1.29.1-tctl-1.18.4-cli-1.5.0"},
		setup:  corev1.Container{Image: "temporalio/temporal:1.5.1"},
	}
	require.NoError(t, ov.checkReleases("1.29.1", "1.5.1"))
	require.ErrorContains(t, ov.checkReleases("1.29.2", "1.5.1"), "temporalio/server:1.29.1")
	ov.schema.Image = "temporalio/admin-tools:1.29.10-tctl-1.18.4-cli-1.5.0"
	require.ErrorContains(t, ov.checkReleases("1.29.1", "1.5.1"), "admin-tools")
}

// TestTheOverlayAsShippedIsWhatTheStackCanRun renders deploy/temporal/postgres and checks that
// the stack finds each part, that the environment of each container resolves once the stack
// has merged its database in, and that the server's command reads the configuration where
// the stack writes it.
func TestTheOverlayAsShippedIsWhatTheStackCanRun(t *testing.T) {
	root, err := Root(".")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s := &Stack{opts: Options{Cache: Cache()}}
	ov, err := s.renderOverlay(ctx, filepath.Join(root, "deploy", "temporal", "postgres"))
	require.NoError(t, err)
	role, err := ov.role()
	require.NoError(t, err)
	require.Equal(t, "temporal", role)
	require.NoError(t, ov.connect("127.0.0.1", "15432", "secret"))
	for _, c := range []corev1.Container{ov.schema, ov.server, ov.setup} {
		env, err := ov.env(c)
		require.NoError(t, err, c.Name)
		if c.Name != ov.setup.Name {
			require.Subset(t, env, []string{"POSTGRES_DATABASE=temporal", "POSTGRES_VISIBILITY_DATABASE=temporal_visibility"}, c.Name)
			require.Contains(t, strings.Join(env, " "), "=15432", c.Name)
		}
	}
	argv := ov.mounted(ov.server.Command, "/local/config")
	require.Contains(t, argv, "--config=/local/config")
	_, ok := ov.config["postgres.yaml"]
	require.True(t, ok, "the server reads <--env>.yaml, and the overlay runs --env=postgres")
}
