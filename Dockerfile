# Quire as an OCI image: the compiled executable on a minimal base, run as a non-root user, its
# data directory one volume, its health what `quire status` reads (GET /api/health on the port it
# recorded, matched against the instance that wrote it) — the base has no shell or curl to ask.
#
#   bun run build && podman build -t quire .          (or docker build; this machine's CPU)
#   podman build --build-arg QUIRE_BINARY=dist/release/quire-0.1.0-linux-arm64 --platform linux/arm64 -t quire .
#   podman run -p 3000:3000 -v quire-data:/data quire
#
# The executable needs only glibc (and libgcc_s for the argon2 binding): distroless/cc carries both.
ARG BASE=gcr.io/distroless/cc-debian12:nonroot
FROM ${BASE} AS base
FROM ${BASE}

ARG QUIRE_BINARY=dist/quire
COPY ${QUIRE_BINARY} /usr/local/bin/quire
# The data directory, owned by the user quire runs as: the base has no shell to mkdir/chown, so the
# (empty) home of its nonroot user is copied there. A new volume starts with this owner.
COPY --from=base --chown=65532:65532 /home/nonroot /data

ENV DATA_DIR=/data \
    PORT=3000
# The nonroot user of the distroless base (uid 65532).
USER 65532:65532
WORKDIR /data
VOLUME ["/data"]
EXPOSE 3000

HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["/usr/local/bin/quire", "status", "--data-dir", "/data"]

STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/quire"]
CMD ["serve"]
