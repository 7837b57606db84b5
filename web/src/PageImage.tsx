/** An `<img>` of one of our server's paths, shown wherever the page is (the app, a widget: page-fetch.ts). */
import type { ImgHTMLAttributes } from "react";
import { usePageUrl } from "./page-fetch.ts";

export function PageImage({ src, alt, ...rest }: ImgHTMLAttributes<HTMLImageElement> & { src: string; alt: string }) {
  const url = usePageUrl(src);
  return (
    <img
      {...rest}
      alt={alt}
      src={url}
      onError={(event) => {
        event.currentTarget.hidden = true;
      }}
    />
  );
}
