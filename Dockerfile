# sqlmcp in a container: built with cgo by scripts/build.sh (the same script
# CI runs), run as a non-root user from a static distroless image.
#
#   docker build -t sqlmcp .
#   docker run -i --rm sqlmcp serve --demo
#   docker run -i --rm -v "$PWD:/data:ro" sqlmcp serve --db /data/shop.db
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
ENTRYPOINT ["/usr/local/bin/sqlmcp"]
CMD ["serve", "--demo"]
