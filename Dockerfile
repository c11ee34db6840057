# sqlmcp in a container: built with cgo by scripts/build.sh (the same script
# CI runs), run as a non-root user from a static distroless image.
#
#   docker build -t sqlmcp .
#   docker run --rm -p 8080:8080 -e SQLMCP_AUTH_TOKENS=<a long random token> sqlmcp
#   docker run -i --rm sqlmcp serve --demo                      # stdio instead
#
# By default it serves the demo over streamable HTTP on 0.0.0.0:8080 inside
# the container, which needs a bearer token: without one it refuses to
# start. Point it at a database with SQLMCP_DB (or --db).
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG SQLMCP_VERSION=docker
RUN SQLMCP_VERSION=${SQLMCP_VERSION} scripts/build.sh /out/sqlmcp

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/sqlmcp /usr/local/bin/sqlmcp
USER nonroot:nonroot
ENV SQLMCP_CACHE_DIR=/home/nonroot/.cache/sqlmcp
EXPOSE 8080
# distroless has no curl: sqlmcp asks itself.
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["/usr/local/bin/sqlmcp", "healthcheck", "http://127.0.0.1:8080/healthz"]
ENTRYPOINT ["/usr/local/bin/sqlmcp"]
CMD ["serve", "--demo", "--http", "0.0.0.0:8080"]
