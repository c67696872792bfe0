module liken.sh/runner

go 1.26.0

require (
	github.com/stretchr/testify v1.12.1 // indirect
	go.temporal.io/sdk v1.51.0 // indirect
	golang.org/x/image v0.48.0 // indirect
	k8s.io/api v0.37.2 // indirect
	k8s.io/apimachinery v0.37.2 // indirect
	k8s.io/client-go v0.37.2 // indirect
)
