// The image substitutes experiments share: one declaration per backend, so the
// words that say what ran instead are written once.
import type { ImageSubstitute } from './types.ts';

/** Debian's nginx-light, built by kind:prepare, for the nginx image where no registry answers. */
export const NGINX_AS_DEBIAN_NGINX_LIGHT: ImageSubstitute = {
  image: 'nginx:1.27-alpine',
  recipe: 'debian-nginx-light',
  note: {
    // Shared by every article whose backend is nginx: what each one's config returns is its own (074 the
    // address it saw, 075 its hostname), so the note says only that the answer is the config's either way.
    en: 'The pods ran Debian’s nginx-light, built on this machine, in place of nginx:1.27-alpine, which no registry could provide here; it serves the same mounted config, so it answers what the manifest’s nginx would',
    zh: 'Pod 运行的是在本机构建的 Debian nginx-light，代替这里拉取不到的 nginx:1.27-alpine；它读取同一份挂载的配置，所以回答的内容与清单里的 nginx 相同',
  },
};
