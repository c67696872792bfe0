// The control plane that every integration test starts: pods and Jobs run and RBAC holds, and
// a program that cannot bind its port is reported as a port taken.
package localstack

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// TestTheKubeStackRunsPodsAndJobsAndEnforcesRBAC starts the control plane alone and checks
// what every integration test relies on: pods are scheduled and become Running on the fake
// node, a Job's pod completes and the Job is Complete, and an unprivileged identity is refused.
func TestTheKubeStackRunsPodsAndJobsAndEnforcesRBAC(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := Start(ctx, Options{Dir: t.TempDir(), Cache: Cache(), Kube: true})
	require.NoError(t, err)
	defer s.Stop()

	cfg, err := clientcmd.BuildConfigFromFlags("", s.Kubeconfig)
	require.NoError(t, err)
	kube := kubernetes.NewForConfigOrDie(cfg)

	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "hello", Namespace: "default"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "example.invalid/hello"}}},
	}
	_, err = kube.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		p, err := kube.CoreV1().Pods("default").Get(ctx, "hello", metav1.GetOptions{})
		return err == nil && p.Spec.NodeName == NodeName && p.Status.Phase == corev1.PodRunning
	}, time.Minute, 200*time.Millisecond, "the pod was not scheduled and Running")

	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "once", Namespace: "default"},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "c", Image: "example.invalid/once"}},
		}}},
	}
	_, err = kube.BatchV1().Jobs("default").Create(ctx, job, metav1.CreateOptions{})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		j, err := kube.BatchV1().Jobs("default").Get(ctx, "once", metav1.GetOptions{})
		if err != nil {
			return false
		}
		for _, c := range j.Status.Conditions {
			if c.Type == batchv1.JobComplete && c.Status == corev1.ConditionTrue {
				return true
			}
		}
		return false
	}, time.Minute, 200*time.Millisecond, "the Job did not complete")

	anon := kubernetes.NewForConfigOrDie(&rest.Config{Host: s.APIServer, TLSClientConfig: rest.TLSClientConfig{Insecure: true}})
	_, err = anon.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
	require.True(t, apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err), "an anonymous client listed pods: %v", err)
}

// TestAProgramThatCannotBindItsPortIsReportedAsAPortTaken is what lets Start try again with
// other ports when a parallel test package took one between its choice and the bind.
func TestAProgramThatCannotBindItsPortIsReportedAsAPortTaken(t *testing.T) {
	dir := t.TempDir()
	s := &Stack{opts: Options{Dir: dir}, log: slog.Default()}
	for name, said := range map[string]string{
		"etcd":     `listen tcp 127.0.0.1:1: bind: address already in use`,
		"postgres": `LOG:  could not bind IPv4 address "127.0.0.1": Address already in use`,
	} {
		err := s.run(context.Background(), &proc{
			name: name, path: "/bin/sh", dir: dir,
			args:  []string{"-c", "echo '" + said + "'; echo 'a long panic trace'; exit 1"},
			ready: func(context.Context) error { return errors.New("not yet") },
		})
		require.ErrorIs(t, err, errPortTaken, name)
	}

	err := s.run(context.Background(), &proc{
		name: "other", path: "/bin/sh", dir: dir,
		args:  []string{"-c", "echo 'no such flag'; exit 2"},
		ready: func(context.Context) error { return errors.New("not yet") },
	})
	require.Error(t, err)
	require.NotErrorIs(t, err, errPortTaken)
	require.Contains(t, err.Error(), "no such flag", "the error carries the end of the log")
}
