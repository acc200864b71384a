// Ten type errors: with the other files, more than GitHub annotates in one step.
export const value0_0: number = "0.0";
export const value0_1: number = "0.1";
export const value0_2: number = "0.2";
export const value0_3: number = "0.3";
export const value0_4: number = "0.4";
export const value0_5: number = "0.5";
export const value0_6: number = "0.6";
export const value0_7: number = "0.7";
export const value0_8: number = "0.8";
export const value0_9: number = "0.9";
