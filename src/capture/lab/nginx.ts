// Running a pod's nginx with Debian's nginx-light: the nginx image's main
// config, with every path moved into the pod's folder of the run; the lab
// kubelet puts the ConfigMap's files where the image would see them.
import { join } from 'node:path';

/** Where the image's nginx.conf includes server blocks from (`include /etc/nginx/conf.d/*.conf`). */
export const NGINX_CONF_DIR = '/etc/nginx/conf.d';

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

export function nginxPaths(runFolder: string, pod: { namespace: string; name: string }): NginxPaths {
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

/**
 * The nginx image's /etc/nginx/nginx.conf, but in the foreground, with one
 * worker and the run folder's paths; it includes the mounted server blocks the
 * way the image does.
 */
export function nginxMainConfig(paths: NginxPaths): string {
  const temp = (name: string): string => join(paths.root, name);
  return [
    "# Written by the shice lab: the nginx image's main config with paths moved into the run folder.",
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
