// Running a pod's nginx with Debian's nginx-light: the nginx image's main
// config, with every path moved into the pod's folder of the run, and the
// ConfigMap's files where the image would see them.
import { join } from 'node:path';
import type { LabPod } from './layout.ts';
import { NGINX_CONF_DIR } from './layout.ts';

export const NGINX_BINARY = '/usr/sbin/nginx';

/** Files and folders of one pod inside the run folder. */
export interface NginxPaths {
  root: string;
  config: string;
  errorLog: string;
  accessLog: string;
  pidFile: string;
  /** Stands for the container's filesystem: ConfigMap files land under it at their mount path. */
  rootfs: string;
}

export function nginxPaths(runFolder: string, pod: Pick<LabPod, 'namespace' | 'name'>): NginxPaths {
  const root = join(runFolder, 'pods', `${pod.namespace}.${pod.name}`);
  return {
    root,
    config: join(root, 'nginx.conf'),
    errorLog: join(root, 'error.log'),
    accessLog: join(root, 'access.log'),
    pidFile: join(root, 'nginx.pid'),
    rootfs: join(root, 'rootfs'),
  };
}

/** The ConfigMap files with their place under the pod's rootfs. */
export function nginxConfigFiles(paths: NginxPaths, pod: LabPod): { path: string; content: string }[] {
  return pod.configFiles.map((file) => ({ path: join(paths.rootfs, file.containerPath), content: file.content }));
}

/**
 * The nginx image's /etc/nginx/nginx.conf, but in the foreground, with one
 * worker and the run folder's paths; it includes the mounted server blocks the
 * way the image does.
 */
export function nginxMainConfig(paths: NginxPaths): string {
  const temp = (name: string): string => join(paths.root, name);
  return [
    '# Written by the shice lab: the nginx image\'s main config with paths moved into the run folder.',
    'daemon off;',
    'worker_processes 1;',
    `error_log ${paths.errorLog} notice;`,
    `pid ${paths.pidFile};`,
    '',
    'events {',
    '    worker_connections 1024;',
    '}',
    '',
    'http {',
    '    include /etc/nginx/mime.types;',
    '    default_type application/octet-stream;',
    '    log_format main \'$remote_addr - $remote_user [$time_local] "$request" \'',
    '                    \'$status $body_bytes_sent "$http_referer" \'',
    '                    \'"$http_user_agent" "$http_x_forwarded_for"\';',
    `    access_log ${paths.accessLog} main;`,
    '    sendfile on;',
    '    keepalive_timeout 65;',
    `    client_body_temp_path ${temp('client_body')};`,
    `    proxy_temp_path ${temp('proxy')};`,
    `    fastcgi_temp_path ${temp('fastcgi')};`,
    `    uwsgi_temp_path ${temp('uwsgi')};`,
    `    scgi_temp_path ${temp('scgi')};`,
    `    include ${join(paths.rootfs, NGINX_CONF_DIR)}/*.conf;`,
    '}',
    '',
  ].join('\n');
}

/** nginx in the foreground; -e keeps it from opening /var/log/nginx/error.log before reading the config. */
export function nginxCommand(paths: NginxPaths): string[] {
  return [NGINX_BINARY, '-p', paths.root, '-c', paths.config, '-e', paths.errorLog];
}

/** kubelet's readiness check, from the pod's node: an HTTP GET that must succeed. */
export function readinessProbeCommand(pod: LabPod, port: number): string[] {
  return ['curl', '--silent', '--fail', '--output', '/dev/null', '--max-time', '1', `http://${pod.ip}:${port}/`];
}
