// Ten type errors: with the other files, more than GitHub annotates in one step.
export const value2_0: number = "2.0";
export const value2_1: number = "2.1";
export const value2_2: number = "2.2";
export const value2_3: number = "2.3";
export const value2_4: number = "2.4";
export const value2_5: number = "2.5";
export const value2_6: number = "2.6";
export const value2_7: number = "2.7";
export const value2_8: number = "2.8";
export const value2_9: number = "2.9";
