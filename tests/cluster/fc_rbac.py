"""Authentication and RBAC: scenario users (bearer token, client
certificate, exec plugin), the permissions of `allow`, and the 401/403
answers worded as the API server words them.  Impersonation is fc_front's."""
import fc_dra
import fc_dgd

PERMS = ["list-pods", "get-pods", "exec", "exec-get", "exec-create", "logs", "list-namespaces",
         "impersonate", "proxy"] + fc_dra.PERMS + fc_dgd.PERMS


class User:
    def __init__(self, name, kind, token=None, allow=None, api_version=None):
        self.name = name
        self.kind = kind
        self.token = token
        self.allow = set(allow) if allow is not None else set(PERMS)
        self.api_version = api_version

    def can(self, perm):
        if perm in ("exec-get", "exec-create"):
            return "exec" in self.allow or perm in self.allow
        return perm in self.allow


class RbacMixin:
    """Handler methods: who is asking (authenticate) and the 403 (forbid)."""

    def authenticate(self):
        auth = self.headers.get("Authorization")
        user = None
        if auth:
            parts = auth.split(None, 1)
            if len(parts) == 2 and parts[0].lower() == "bearer":
                tok = parts[1].strip()
                user = self.st.faults.auth(self, tok, self.st.tokens.get(tok))
            return user
        try:
            cert = getattr(self, "tls_conn", self.connection).getpeercert()
        except (ValueError, AttributeError):
            cert = None
        if cert:
            for rdn in cert.get("subject", ()):
                for k, v in rdn:
                    if k == "commonName":
                        u = self.st.users.get(v)
                        if u is not None and u.kind == "cert":
                            return u
        return None

    # ---- RBAC
    def forbid(self, verb, resource, ns, name=None):
        who = 'User "%s" cannot %s resource "%s" in API group ""' % (self.user.name, verb, resource)
        where = ' in the namespace "%s"' % ns if ns is not None else " at the cluster scope"
        top = resource.split("/")[0]
        if name is not None:
            msg = '%s "%s" is forbidden: %s%s' % (top, name, who, where)
            det = {"name": name, "kind": top}
        else:
            msg = "%s is forbidden: %s%s" % (top, who, where)
            det = {"kind": top}
        self.send_status(403, "Forbidden", msg, det)
