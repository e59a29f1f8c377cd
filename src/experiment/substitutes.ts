// The image substitutes experiments share: one declaration per backend, so the
// words that say what ran instead are written once.
import type { ImageSubstitute } from './types.ts';

/** Debian's nginx-light, built by kind:prepare, for the nginx image where no registry answers. */
export const NGINX_AS_DEBIAN_NGINX_LIGHT: ImageSubstitute = {
  image: 'nginx:1.27-alpine',
  recipe: 'debian-nginx-light',
  note: {
    en: "The pods ran Debian's nginx-light, built on this machine, in place of nginx:1.27-alpine, which no registry could provide here; it serves the same mounted config, so the address nginx reports is the one it saw either way",
    zh: 'Pod 运行的是在本机构建的 Debian nginx-light，代替这里拉取不到的 nginx:1.27-alpine；它读取同一份挂载的配置，所以 nginx 报告的仍是它看到的地址',
  },
};
