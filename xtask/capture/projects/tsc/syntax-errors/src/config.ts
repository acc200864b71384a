export const config = {
  name: "demo",
  retries: 3
  timeout: 1000,
};

export function load(): typeof config {
  return config;
}}
