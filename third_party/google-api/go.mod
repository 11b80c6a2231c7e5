module google.golang.org/api

go 1.26.0

require (
	github.com/google/uuid v1.6.0
	github.com/googleapis/gax-go/v2 v2.26.2
)
