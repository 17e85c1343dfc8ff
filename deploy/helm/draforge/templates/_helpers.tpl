{{/* Names: <release>-<component>, or just the component when the release is called "draforge". */}}
{{- define "draforge.name" -}}
{{- if eq .root.Release.Name "draforge" -}}
draforge-{{ .component }}
{{- else -}}
{{- printf "%s-draforge-%s" .root.Release.Name .component | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Labels that select one component's pods; they never change across upgrades. */}}
{{- define "draforge.selectorLabels" -}}
app.kubernetes.io/name: draforge-{{ .component }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
{{- end -}}

{{- define "draforge.labels" -}}
{{ include "draforge.selectorLabels" . }}
app.kubernetes.io/component: {{ .component }}
app.kubernetes.io/part-of: draforge
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version }}
{{- end -}}

{{- define "draforge.image" -}}
{{ .root.Values.image.registry }}/{{ .values.image.repository }}:{{ .root.Values.image.tag | default .root.Chart.AppVersion }}
{{- end -}}

{{/* The service account's user name, as the API server sees it (admission policies match it). */}}
{{- define "draforge.serviceAccountUser" -}}
system:serviceaccount:{{ .root.Release.Namespace }}:{{ include "draforge.name" . }}
{{- end -}}

{{/*
The restricted Pod Security profile (pod level): non-root with a fixed numeric UID (the images
are FROM scratch: there is no /etc/passwd to resolve a user name), RuntimeDefault seccomp.
*/}}
{{- define "draforge.restrictedPodSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
fsGroup: 65532
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* The restricted Pod Security profile (container level). */}}
{{- define "draforge.restrictedContainerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: [ALL]
{{- end -}}

{{/* NetworkPolicy egress: DNS and the API server, nothing else. */}}
{{- define "draforge.egressToApiServer" -}}
egress:
  - ports:
      - {protocol: UDP, port: 53}
      - {protocol: TCP, port: 53}
  - ports:
      {{- range .Values.apiServerPorts }}
      - {protocol: TCP, port: {{ . | int }}}
      {{- end }}
{{- end -}}
